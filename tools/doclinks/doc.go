// Package doclinks holds only tests of the repository's docs: that its
// Markdown links resolve inside the repository, so that a clone stands
// alone; that no doc or example claims a Terraform, OpenTofu or Go version
// below the ones the tests run; and that the README and the provider's page
// stay small and share no paragraph.
package doclinks
