package lambda

import "context"

// Prompt is what a model answers: the user's question, the language to
// answer in and the retrieved snippets it must answer from (in the order of
// the `sources` frame).
type Prompt struct {
	// Question is the user's message text as sent (a "$say " script included).
	Question string
	Lang     Lang
	Snippets []Citation
	// Confidence is retrieval's: with "low" the snippets may not answer the
	// question, and the answer says so (the server streams Lang's MayHelp
	// first).
	Confidence Confidence
	// Sentences are the sentences of each of Snippets as the knowledge
	// base analysed them when it was loaded (kb.Snippet.Sentences), in the
	// same order; nil when they were not (the mock then analyses the
	// snippets' text itself).
	Sentences [][]Sentence
}

// Model streams an answer token by token. Implementations must be safe for
// concurrent use by several answers.
type Model interface {
	// Stream starts an answer. Cancelling ctx makes a pending or later
	// Next return promptly with ctx's error. The caller must Close the
	// returned Tokens (also after an error from Next).
	Stream(ctx context.Context, p Prompt) (Tokens, error)
}

// Tokens is one streaming answer, read by one goroutine.
type Tokens interface {
	// Next blocks until the next token (a piece of text, e.g. a word with its
	// leading space) and returns it; io.EOF when the answer is complete; any
	// other error ends the answer (ctx's error when it was cancelled).
	Next() (string, error)
	// Close releases the stream (network connection, timers). Safe to call
	// more than once.
	Close() error
}
