package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/matryer/is"
)

func TestScenario(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(run(context.Background(), &out))
	is.Equal(out.String(), `customer: Please refund invoice 12.
frontdesk: I have asked billing to refund it; I will let you know.
pending: background_approval wants refund({"invoice":12})
customer: (approves)
frontdesk: Thank you, billing goes on with the refund.
billing ran refund({"invoice":12})
customer: Is it done?
frontdesk: Yes: billing says invoice 12 is refunded.
`)
}
