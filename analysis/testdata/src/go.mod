module example.com

go 1.26.0

require github.com/typeshift-go/typeshift v0.0.0

replace github.com/typeshift-go/typeshift => ../../..
