// Package doccheck holds the test that every Go snippet of the README and of docs/ compiles.
//
// A snippet that starts with a package clause is a complete file and is type-checked as one. Any other snippet
// is a fragment of a page: it is type-checked as declarations, or failing that as the statements of a function,
// with the imports its qualified names call for added, and the only errors forgiven are names the page defines
// elsewhere (undefined: x), variables and imports left unused, and a return outside a function's signature.
// A snippet that is not meant to compile at all (a deliberate mistake, pseudo-code, an excerpt of another
// language's JSON) says so on the line before its fence with
//
//	<!-- fragment -->
//
// or with a paragraph ending in "(a fragment):" or containing "Wrong:" right before it. The files of
// docs/getting-started.md, marked <!-- file: path -->, are built by .ci/getting-started.sh instead, in the module
// that page makes.
package doccheck
