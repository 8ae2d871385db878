// Command tiny is the smallest Go program: the acctest package's tests
// build it in the ways a build of the provider may have been made.
package main

func main() {}
