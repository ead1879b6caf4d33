package background

import (
	"fmt"

	"github.com/typeshift-go/typeshift/agent/chat"
)

// Ended returns the outcome of a job that ended with status, with its report for the caller. text is the answer
// when status is StatusSucceeded and the reason otherwise. Queues call it for the ends they decide themselves: a
// job cancelled or timed out while not running, or one whose attempts all failed.
func Ended(job Job, status Status, text string) Outcome {
	o := Outcome{Status: status}
	if status == StatusSucceeded {
		o.Result = text
	} else {
		o.Error = text
	}
	o.Report = reportOf(job, status, text)
	return o
}

// reportOf is the steering input that tells the caller's model how a job ended. It names the handle and the
// status in words the model cannot mistake for the user's own request.
func reportOf(job Job, status Status, text string) []byte {
	var msg string
	switch status {
	case StatusSucceeded:
		msg = fmt.Sprintf("[background run %s of agent %s succeeded] Its answer to the task %q:\n%s", job.ID, job.Agent, clip(job.Task), text)
	case StatusFailed:
		msg = fmt.Sprintf("[background run %s of agent %s failed] The task %q was not done: %s", job.ID, job.Agent, clip(job.Task), text)
	case StatusCancelled:
		msg = fmt.Sprintf("[background run %s of agent %s was cancelled] The task %q was not finished: %s", job.ID, job.Agent, clip(job.Task), text)
	case StatusTimedOut:
		msg = fmt.Sprintf("[background run %s of agent %s timed out] The task %q was not finished before its deadline: %s", job.ID, job.Agent, clip(job.Task), text)
	default:
		msg = fmt.Sprintf("[background run %s of agent %s is %s] %s", job.ID, job.Agent, status, text)
	}
	data, err := chat.MarshalMessages([]chat.Message{chat.UserText(msg)})
	if err != nil { // a text message always marshals; keep a report anyway
		return []byte(`[{"role":"user","parts":[{"type":"text","text":"a background run ended"}]}]`)
	}
	return data
}

// clip shortens a task for a report: the caller's model wrote it and needs only enough to recognise it.
func clip(s string) string {
	r := []rune(s)
	if len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
