// Package dynamostore is the DynamoDB implementation of lambda.Store: the
// state that Lambda invocations on different instances share (the answers of
// each connection with their cancel flags and who sends their end, and
// action suggestions).
//
// # Table
//
// One table with a string partition key `pk` and a string sort key `sk`:
//
//	pk              sk             item
//	conn#<connId>   conn           the connection: connectedAt
//	conn#<connId>   answer         its current answer: msg
//	conn#<connId>   answer#<key>   an answer's record: msg, cancelled, taken
//	conn#<connId>   sugg#<sid>     a reference to one of its suggestions
//	sugg#<sid>      sugg         the suggestion: conn, msg, action, payload,
//	                             status, createdAt, window, windowSec, expiresAt
//
// An answer's record is keyed by its message id (<key> is "=" and the id, or
// "~" and the id's SHA-256 when the id is too long for a sort key); it is
// the single item on which every decision about that answer is a
// conditional write: cancelling it, superseding it, taking its end. The
// `answer` item only says which answer is current, to find it for a cancel
// without an id and for the next StartAnswer.
//
// Suggestions are keyed by their own id, so a confirm finds one with a
// single key lookup; the owning connection is an attribute checked in every
// condition, so from another connection a suggestion is unknown. The
// references under the connection let WithdrawSuggestions and
// DeleteConnection find a connection's suggestions with a strongly
// consistent Query (a secondary index would be eventually consistent).
//
// Times are Unix nanoseconds (createdAt, expiresAt; window in nanoseconds),
// except `ttl`, the epoch seconds after which DynamoDB's Time to Live may
// delete an item: enable TTL on the attribute `ttl`. TTL deletion is lazy
// (it can take days), so correctness never relies on it: expiry is decided
// by expiresAt in conditions and reads. A suggestion's ttl is at least five
// minutes (lambda.Retention) after its expiry; connections, answers, answer
// records and references get three hours, longer than API Gateway keeps a
// connection.
//
// # Atomicity
//
// Every transition is one conditional write (PutItem, UpdateItem or
// DeleteItem with a ConditionExpression), so racing invocations on different
// instances agree: of 20 concurrent confirms exactly one claims the
// suggestion, and of the invocations racing for an answer's end exactly one
// takes it. StartAnswer writes the new answer's record before it becomes
// current, then supersedes the previous one with a conditional write on its
// record (which fails if that answer's end was taken meanwhile: it ended on
// its own). ReleaseAnswer deletes the record, then the `answer` item if it
// still names that message. When a claim's condition fails, the outcome is read back with
// a strongly consistent GetItem; since a suggestion never returns to
// pending, what that read sees is an outcome the claim may report.
// WithdrawSuggestions makes one conditional write per suggestion, and
// DeleteConnection deletes the suggestions first (so that later confirms
// find them unknown), then the connection's items.
//
// # Failures
//
// Errors from DynamoDB are returned as they are; the handler fails closed
// (nothing executes, the client is told). Each call is bounded by
// Options.Timeout; bound the SDK's retries too (aws.Config.RetryMaxAttempts)
// so that a store that is down fails fast instead of hanging a stream.
package dynamostore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/groundwire/groundwire/lambda"
)

// API is the part of the DynamoDB client the store uses; *dynamodb.Client
// implements it.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Options configure a Store.
type Options struct {
	// Timeout bounds each DynamoDB call, retries included (default 2 s).
	Timeout time.Duration
}

// Store implements lambda.Store on one DynamoDB table. It is safe for
// concurrent use.
type Store struct {
	db      API
	table   string
	timeout time.Duration
}

var _ lambda.Store = (*Store)(nil)

// New returns a store on table through db.
func New(db API, table string, opts Options) *Store {
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	return &Store{db: db, table: table, timeout: opts.Timeout}
}

// Attribute names.
const (
	aPK        = "pk"
	aSK        = "sk"
	aTTL       = "ttl"
	aConnected = "connectedAt"
	aMsg       = "msg"
	aCancelled = "cancelled"
	aTaken     = "taken"
	aConn      = "conn"
	aAction    = "action"
	aPayload   = "payload"
	aStatus    = "status"
	aCreated   = "createdAt"
	aWindow    = "window"
	aWindowSec = "windowSec"
	aExpires   = "expiresAt"
)

// connLife is how long connection items are kept: longer than API Gateway
// keeps a connection (2 h).
const connLife = 3 * time.Hour

// names maps #name placeholders to attribute names (every attribute is
// written as #name: several are DynamoDB reserved words).
var names = map[string]string{
	"#pk": aPK, "#sk": aSK, "#ttl": aTTL, "#msg": aMsg, "#cancelled": aCancelled, "#taken": aTaken,
	"#conn": aConn, "#status": aStatus, "#window": aWindow, "#windowSec": aWindowSec, "#expiresAt": aExpires,
}

// exprNames returns the placeholders used in the expressions.
func exprNames(exprs ...string) map[string]string {
	out := map[string]string{}
	for k, v := range names {
		for _, e := range exprs {
			if containsName(e, k) {
				out[k] = v
				break
			}
		}
	}
	return out
}

// containsName reports whether expression e uses placeholder k (not as a
// prefix of a longer one).
func containsName(e, k string) bool {
	for i := 0; ; {
		j := strings.Index(e[i:], k)
		if j < 0 {
			return false
		}
		end := i + j + len(k)
		if end == len(e) || !isNameChar(e[end]) {
			return true
		}
		i = end
	}
}

func isNameChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}
func b(v bool) types.AttributeValue          { return &types.AttributeValueMemberBOOL{Value: v} }
func ttlAt(t time.Time) types.AttributeValue { return n(t.Unix() + 1) }

func connPK(connID string) string { return "conn#" + connID }
func suggPK(id string) string     { return "sugg#" + id }

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{aPK: s(pk), aSK: s(sk)}
}

func answerKey(connID string) map[string]types.AttributeValue { return key(connPK(connID), "answer") }

func suggKey(id string) map[string]types.AttributeValue { return key(suggPK(id), "sugg") }

// maxIDInKey is the longest message id used as it is in a sort key
// (DynamoDB allows 1024 bytes).
const maxIDInKey = 512

// recordSK is the sort key of the record of answer msgID.
func recordSK(msgID string) string {
	if len(msgID) <= maxIDInKey {
		return "answer#=" + msgID
	}
	sum := sha256.Sum256([]byte(msgID))
	return "answer#~" + hex.EncodeToString(sum[:])
}

func recordKey(connID, msgID string) map[string]types.AttributeValue {
	return key(connPK(connID), recordSK(msgID))
}

// conditionFailed reports whether err is a failed ConditionExpression.
func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

func (st *Store) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, st.timeout)
}

// PutConnection implements lambda.Store.
func (st *Store) PutConnection(ctx context.Context, c lambda.Connection) error {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	item := key(connPK(c.ID), "conn")
	item[aConnected] = n(c.ConnectedAt.UnixNano())
	item[aTTL] = ttlAt(c.ConnectedAt.Add(connLife))
	_, err := st.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &st.table, Item: item})
	return wrap("put connection", err)
}

// DeleteConnection implements lambda.Store: the connection's suggestions
// are deleted (later confirms: unknown), then its answer records (a
// streaming answer sees itself cancelled), the current answer, references
// and the connection.
func (st *Store) DeleteConnection(ctx context.Context, connID string) error {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	items, err := st.query(ctx, connPK(connID), "")
	if err != nil {
		return wrap("delete connection", err)
	}
	for _, it := range items {
		sk := str(it[aSK])
		if id, ok := strings.CutPrefix(sk, "sugg#"); ok {
			_, err := st.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
				TableName: &st.table, Key: suggKey(id),
				ConditionExpression:       aws.String("#conn = :c"),
				ExpressionAttributeNames:  exprNames("#conn"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":c": s(connID)},
			})
			if err != nil && !conditionFailed(err) {
				return wrap("delete suggestion", err)
			}
		}
	}
	// the answers first, the connection item last
	for _, sk := range sortKeys(items) {
		if _, err := st.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &st.table, Key: key(connPK(connID), sk)}); err != nil {
			return wrap("delete connection", err)
		}
	}
	return nil
}

// sortKeys orders a connection's items for deletion: answer records, the
// current answer, references, connection.
func sortKeys(items []map[string]types.AttributeValue) []string {
	var first, mid, last []string
	for _, it := range items {
		switch sk := str(it[aSK]); {
		case strings.HasPrefix(sk, "answer#"):
			first = append([]string{sk}, first...)
		case sk == "answer":
			first = append(first, sk)
		case sk == "conn":
			last = append(last, sk)
		default:
			mid = append(mid, sk)
		}
	}
	return append(append(first, mid...), last...)
}

// query returns every item of partition pk whose sort key begins with
// prefix, read strongly consistently.
func (st *Store) query(ctx context.Context, pk, prefix string) ([]map[string]types.AttributeValue, error) {
	cond := "#pk = :pk"
	vals := map[string]types.AttributeValue{":pk": s(pk)}
	if prefix != "" {
		cond += " AND begins_with(#sk, :prefix)"
		vals[":prefix"] = s(prefix)
	}
	in := &dynamodb.QueryInput{
		TableName:                 &st.table,
		KeyConditionExpression:    aws.String(cond),
		ExpressionAttributeNames:  exprNames(cond),
		ExpressionAttributeValues: vals,
		ConsistentRead:            aws.Bool(true),
	}
	var out []map[string]types.AttributeValue
	for {
		page, err := st.db.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if len(page.LastEvaluatedKey) == 0 {
			return out, nil
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
}

// StartAnswer implements lambda.Store: the new record (PutItem, on the
// condition that there is none: lambda.ErrAnswerInUse), then the `answer`
// item naming it (PutItem returning the one it replaced), then, if there
// was a previous answer, one conditional UpdateItem that cancels it unless
// it was cancelled already or its end taken.
func (st *Store) StartAnswer(ctx context.Context, connID, msgID string, now time.Time) (string, error) {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	rec := recordKey(connID, msgID)
	rec[aMsg] = s(msgID)
	rec[aCancelled] = b(false)
	rec[aTaken] = b(false)
	rec[aTTL] = ttlAt(now.Add(connLife))
	cond := "attribute_not_exists(#pk)"
	_, err := st.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &st.table, Item: rec,
		ConditionExpression: aws.String(cond), ExpressionAttributeNames: exprNames(cond)})
	if conditionFailed(err) {
		return "", lambda.ErrAnswerInUse
	}
	if err != nil {
		return "", wrap("start answer", err)
	}
	cur := answerKey(connID)
	cur[aMsg] = s(msgID)
	cur[aTTL] = ttlAt(now.Add(connLife))
	out, err := st.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &st.table, Item: cur, ReturnValues: types.ReturnValueAllOld})
	if err != nil {
		// not started: the record would only wait for its ttl
		st.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &st.table, Key: recordKey(connID, msgID)})
		return "", wrap("start answer", err)
	}
	prev := str(out.Attributes[aMsg])
	if prev == "" {
		return "", nil
	}
	if _, err := st.cancel(ctx, connID, prev); err != nil {
		return "", wrap("supersede answer", err)
	}
	return prev, nil
}

// cancel sets the cancel flag of an active answer's record: one conditional
// UpdateItem. It reports whether it did.
func (st *Store) cancel(ctx context.Context, connID, msgID string) (bool, error) {
	return st.updateIf(ctx, recordKey(connID, msgID),
		"attribute_exists(#pk) AND #cancelled = :false AND #taken = :false",
		"SET #cancelled = :true",
		map[string]types.AttributeValue{":false": b(false), ":true": b(true)})
}

// updateIf runs one conditional UpdateItem and reports whether the
// condition held (and so the update was made).
func (st *Store) updateIf(ctx context.Context, key map[string]types.AttributeValue, cond, update string, values map[string]types.AttributeValue) (bool, error) {
	_, err := st.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &st.table, Key: key,
		ConditionExpression:       aws.String(cond),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  exprNames(cond, update),
		ExpressionAttributeValues: values,
	})
	if conditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

// CancelAnswer implements lambda.Store: one conditional UpdateItem on the
// answer's record, after a strongly consistent GetItem of the current
// answer when msgID is "".
func (st *Store) CancelAnswer(ctx context.Context, connID, msgID string) (string, error) {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	if msgID == "" {
		out, err := st.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &st.table, Key: answerKey(connID), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return "", wrap("cancel answer", err)
		}
		if msgID = str(out.Item[aMsg]); msgID == "" {
			return "", nil
		}
	}
	ok, err := st.cancel(ctx, connID, msgID)
	if err != nil || !ok {
		return "", wrap("cancel answer", err)
	}
	return msgID, nil
}

// record reads an answer's record, strongly consistently (nil: none).
func (st *Store) record(ctx context.Context, connID, msgID string) (map[string]types.AttributeValue, error) {
	out, err := st.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &st.table, Key: recordKey(connID, msgID), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// AnswerCancelled implements lambda.Store: one strongly consistent GetItem.
func (st *Store) AnswerCancelled(ctx context.Context, connID, msgID string) (bool, error) {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	it, err := st.record(ctx, connID, msgID)
	if err != nil {
		return true, wrap("read cancel flag", err)
	}
	return len(it) == 0 || boolean(it[aCancelled]) || boolean(it[aTaken]), nil
}

// take takes the end of an answer whose record's cancel flag is cancelled:
// one conditional UpdateItem.
func (st *Store) take(ctx context.Context, connID, msgID string, cancelled bool) (bool, error) {
	return st.updateIf(ctx, recordKey(connID, msgID),
		"attribute_exists(#pk) AND #cancelled = :cancelled AND #taken = :false",
		"SET #taken = :true",
		map[string]types.AttributeValue{":cancelled": b(cancelled), ":false": b(false), ":true": b(true)})
}

// EndAnswer implements lambda.Store: one conditional UpdateItem.
func (st *Store) EndAnswer(ctx context.Context, connID, msgID string) (bool, error) {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	ok, err := st.take(ctx, connID, msgID, false)
	return ok, wrap("end answer", err)
}

// TakeAnswerEnd implements lambda.Store: one conditional UpdateItem.
func (st *Store) TakeAnswerEnd(ctx context.Context, connID, msgID string) (bool, error) {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	ok, err := st.take(ctx, connID, msgID, true)
	return ok, wrap("take answer end", err)
}

// ReleaseAnswer implements lambda.Store: the record is deleted, then the
// `answer` item if it names msgID (conditional DeleteItem).
func (st *Store) ReleaseAnswer(ctx context.Context, connID, msgID string) error {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	if _, err := st.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &st.table, Key: recordKey(connID, msgID)}); err != nil {
		return wrap("release answer", err)
	}
	cond := "#msg = :m"
	_, err := st.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: &st.table, Key: answerKey(connID),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  exprNames(cond),
		ExpressionAttributeValues: map[string]types.AttributeValue{":m": s(msgID)},
	})
	if conditionFailed(err) {
		return nil
	}
	return wrap("release answer", err)
}

// AnswerReleased implements lambda.Store: one strongly consistent GetItem.
func (st *Store) AnswerReleased(ctx context.Context, connID, msgID string) (bool, error) {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	it, err := st.record(ctx, connID, msgID)
	if err != nil {
		return false, wrap("read answer", err)
	}
	return len(it) == 0, nil
}

// retentionTTL is the ttl of a suggestion that expires at t.
func retentionTTL(t time.Time) types.AttributeValue {
	return ttlAt(t.Add(lambda.Retention + time.Minute))
}

// ttlBase is the part of a suggestion's ttl added to its window (in whole
// seconds, attribute windowSec) when it is extended from now.
func ttlBase(now time.Time) types.AttributeValue {
	return n(now.Add(lambda.Retention+time.Minute).Unix() + 1)
}

// PutSuggestion implements lambda.Store: the reference under the connection
// is written first, then the suggestion with a condition that its id is
// new, so every suggestion can be found from its connection.
func (st *Store) PutSuggestion(ctx context.Context, sg lambda.Suggestion) error {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	ref := key(connPK(sg.ConnectionID), "sugg#"+sg.ID)
	ref[aTTL] = ttlAt(sg.CreatedAt.Add(connLife))
	if _, err := st.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &st.table, Item: ref}); err != nil {
		return wrap("put suggestion reference", err)
	}
	payload := map[string]types.AttributeValue{}
	for k, v := range sg.Payload {
		payload[k] = s(v)
	}
	item := suggKey(sg.ID)
	item[aConn] = s(sg.ConnectionID)
	item[aMsg] = s(sg.MessageID)
	item[aAction] = s(sg.Action)
	item[aPayload] = &types.AttributeValueMemberM{Value: payload}
	item[aStatus] = s(string(lambda.SuggestionPending))
	item[aCreated] = n(sg.CreatedAt.UnixNano())
	item[aWindow] = n(int64(sg.Window))
	item[aWindowSec] = n(int64((sg.Window + time.Second - 1) / time.Second))
	item[aExpires] = n(sg.ExpiresAt.UnixNano())
	item[aTTL] = retentionTTL(sg.ExpiresAt)
	cond := "attribute_not_exists(#pk)"
	_, err := st.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &st.table, Item: item,
		ConditionExpression:      aws.String(cond),
		ExpressionAttributeNames: exprNames(cond),
	})
	if conditionFailed(err) {
		return lambda.ErrDuplicateSuggestion
	}
	return wrap("put suggestion", err)
}

// ClaimSuggestion implements lambda.Store: one conditional UpdateItem moves
// a pending, unexpired suggestion of the connection to executing; when the
// condition fails, a consistent read says why.
func (st *Store) ClaimSuggestion(ctx context.Context, connID, id string, now time.Time) (lambda.Suggestion, lambda.ClaimOutcome, error) {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	cond := "#conn = :c AND #status = :pending AND #expiresAt >= :now"
	update := "SET #status = :executing, #expiresAt = :now + #window, #ttl = :ttlBase + #windowSec"
	for range 3 {
		out, err := st.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &st.table, Key: suggKey(id),
			ConditionExpression:      aws.String(cond),
			UpdateExpression:         aws.String(update),
			ExpressionAttributeNames: exprNames(cond, update),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":c": s(connID), ":pending": s(string(lambda.SuggestionPending)),
				":executing": s(string(lambda.SuggestionExecuting)),
				":now":       n(now.UnixNano()), ":ttlBase": ttlBase(now),
			},
			ReturnValues: types.ReturnValueAllNew,
		})
		if err == nil {
			return decodeSuggestion(out.Attributes), lambda.ClaimExecute, nil
		}
		if !conditionFailed(err) {
			return lambda.Suggestion{}, lambda.ClaimUnknown, wrap("claim suggestion", err)
		}
		got, err := st.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &st.table, Key: suggKey(id), ConsistentRead: aws.Bool(true)})
		if err != nil {
			return lambda.Suggestion{}, lambda.ClaimUnknown, wrap("claim suggestion", err)
		}
		if len(got.Item) == 0 || str(got.Item[aConn]) != connID {
			return lambda.Suggestion{}, lambda.ClaimUnknown, nil
		}
		sg := decodeSuggestion(got.Item)
		switch {
		case sg.Status == lambda.SuggestionCancelled:
			return sg, lambda.ClaimCancelled, nil
		case now.After(sg.ExpiresAt):
			return sg, lambda.ClaimExpired, nil
		case sg.Status == lambda.SuggestionPending:
			continue // put after the update failed: claim it now
		default:
			return sg, lambda.ClaimAlreadyExecuted, nil
		}
	}
	return lambda.Suggestion{}, lambda.ClaimUnknown, fmt.Errorf("dynamostore: claim suggestion %s: no stable outcome", id)
}

// FinishSuggestion implements lambda.Store: one conditional UpdateItem.
func (st *Store) FinishSuggestion(ctx context.Context, connID, id string, now time.Time) error {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	_, err := st.updateIf(ctx, suggKey(id),
		"#conn = :c AND #status = :executing",
		"SET #status = :executed, #expiresAt = :now + #window, #ttl = :ttlBase + #windowSec",
		map[string]types.AttributeValue{
			":c": s(connID), ":executing": s(string(lambda.SuggestionExecuting)),
			":executed": s(string(lambda.SuggestionExecuted)),
			":now":      n(now.UnixNano()), ":ttlBase": ttlBase(now),
		})
	return wrap("finish suggestion", err) // a suggestion that is gone is not an error
}

// WithdrawSuggestions implements lambda.Store: one conditional UpdateItem
// per suggestion of the connection that is still pending.
func (st *Store) WithdrawSuggestions(ctx context.Context, connID string, now time.Time) error {
	ctx, cancel := st.ctx(ctx)
	defer cancel()
	refs, err := st.query(ctx, connPK(connID), "sugg#")
	if err != nil {
		return wrap("withdraw suggestions", err)
	}
	cond := "#conn = :c AND #status = :pending"
	// kept at least Retention after the withdrawal (and after the original
	// expiry, which is at most a window after now)
	update := "SET #status = :cancelled, #ttl = :ttlBase + #windowSec"
	for _, ref := range refs {
		id := strings.TrimPrefix(str(ref[aSK]), "sugg#")
		_, err := st.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &st.table, Key: suggKey(id),
			ConditionExpression:      aws.String(cond),
			UpdateExpression:         aws.String(update),
			ExpressionAttributeNames: exprNames(cond, update),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":c": s(connID), ":pending": s(string(lambda.SuggestionPending)),
				":cancelled": s(string(lambda.SuggestionCancelled)), ":ttlBase": ttlBase(now),
			},
		})
		if err != nil && !conditionFailed(err) {
			return wrap("withdraw suggestion", err)
		}
	}
	return nil
}

func decodeSuggestion(it map[string]types.AttributeValue) lambda.Suggestion {
	sg := lambda.Suggestion{
		ID:           strings.TrimPrefix(str(it[aPK]), "sugg#"),
		ConnectionID: str(it[aConn]),
		MessageID:    str(it[aMsg]),
		Action:       str(it[aAction]),
		Status:       lambda.SuggestionStatus(str(it[aStatus])),
		CreatedAt:    time.Unix(0, num(it[aCreated])).UTC(),
		Window:       time.Duration(num(it[aWindow])),
		ExpiresAt:    time.Unix(0, num(it[aExpires])).UTC(),
	}
	if m, ok := it[aPayload].(*types.AttributeValueMemberM); ok {
		sg.Payload = make(map[string]string, len(m.Value))
		for k, v := range m.Value {
			sg.Payload[k] = str(v)
		}
	}
	return sg
}

func str(v types.AttributeValue) string {
	if x, ok := v.(*types.AttributeValueMemberS); ok {
		return x.Value
	}
	return ""
}

func num(v types.AttributeValue) int64 {
	if x, ok := v.(*types.AttributeValueMemberN); ok {
		i, _ := strconv.ParseInt(x.Value, 10, 64)
		return i
	}
	return 0
}

func boolean(v types.AttributeValue) bool {
	x, ok := v.(*types.AttributeValueMemberBOOL)
	return ok && x.Value
}

func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("dynamostore: %s: %w", what, err)
}

// TTLAttribute is the attribute holding the epoch seconds after which
// DynamoDB's Time to Live may delete an item (the template enables TTL on it).
const TTLAttribute = aTTL

// ErrTTLUnsupported is returned by EnableTTL when the DynamoDB at hand has no
// Time to Live API (dynalite): items then never expire by themselves.
var ErrTTLUnsupported = errors.New("this DynamoDB has no Time to Live (UpdateTimeToLive is unknown)")

// TableDefinition is the table the store needs (pk, sk; on-demand capacity),
// the same as lambda/template.yaml's (a test compares them).
func TableDefinition(table string) *dynamodb.CreateTableInput {
	return &dynamodb.CreateTableInput{
		TableName: aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(aPK), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String(aSK), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(aPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(aSK), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}
}

// CreateTable creates table (TableDefinition) unless it exists and waits
// until it is active. An existing table is not checked nor changed. TTL is
// enabled separately (EnableTTL).
func CreateTable(ctx context.Context, db *dynamodb.Client, table string) error {
	_, err := db.CreateTable(ctx, TableDefinition(table))
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamostore: create table %s: %w", table, err)
	}
	for {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
		if err == nil && out.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("dynamostore: table %s not active: %w", table, ctx.Err())
		case <-t.C:
		}
	}
}

// EnableTTL enables Time to Live on TTLAttribute of table unless it is
// already enabled (or being enabled). Against a DynamoDB without the TTL API
// it returns an error wrapping ErrTTLUnsupported.
func EnableTTL(ctx context.Context, db *dynamodb.Client, table string) error {
	unknown := func(err error) bool {
		var api smithy.APIError
		return errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException"
	}
	d, err := db.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: &table})
	if err != nil && !unknown(err) {
		return fmt.Errorf("dynamostore: describe TTL of %s: %w", table, err)
	}
	if err == nil && d.TimeToLiveDescription != nil && aws.ToString(d.TimeToLiveDescription.AttributeName) == aTTL {
		switch d.TimeToLiveDescription.TimeToLiveStatus {
		case types.TimeToLiveStatusEnabled, types.TimeToLiveStatusEnabling:
			return nil
		}
	}
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               &table,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(aTTL), Enabled: aws.Bool(true)},
	})
	if unknown(err) {
		return fmt.Errorf("dynamostore: enable TTL on %s: %w", table, ErrTTLUnsupported)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: enable TTL on %s: %w", table, err)
	}
	return nil
}
