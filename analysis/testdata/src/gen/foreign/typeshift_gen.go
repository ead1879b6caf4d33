// This file was written by hand and happens to have the generated file's name.

package foreign // want `TSH010: typeshift_gen.go was not written by typeshift`
