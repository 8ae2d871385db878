// Package doclinks holds only a test: that the repository's Markdown links
// resolve inside the repository, so that a clone stands alone.
package doclinks
