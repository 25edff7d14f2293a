package dynamostore_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/groundwire/groundwire/lambda"
	"github.com/groundwire/groundwire/lambda/dynamostore"
	"github.com/groundwire/groundwire/lambda/storetest"
)

var t0 = time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)

const window = 30 * time.Second

// TestConformance runs the store contract that the memory store passes.
func TestConformance(t *testing.T) {
	need(t)
	storetest.StoreConformance(t, func(t *testing.T) lambda.Store { return newStore(t) })
}

func suggestion(id, conn string) lambda.Suggestion {
	return lambda.Suggestion{
		ID: id, ConnectionID: conn, MessageID: "m1", Action: lambda.ActionCreateTicket,
		Payload: map[string]string{"subject": "Create ticket: the router blinks"}, CreatedAt: t0,
		Window: window, ExpiresAt: t0.Add(window),
	}
}

// TestClaimRaceInstances: 20 confirms racing on different "instances"
// (stores with their own clients, sharing only the table): exactly one
// ClaimExecute.
func TestClaimRaceInstances(t *testing.T) {
	table := newTable(t)
	ctx := context.Background()
	stores := make([]*dynamostore.Store, 4)
	for i := range stores {
		stores[i] = dynamostore.New(client(endpoint), table, dynamostore.Options{})
	}
	for round := range 5 {
		id := "s" + strconv.Itoa(round)
		if err := stores[0].PutSuggestion(ctx, suggestion(id, "c1")); err != nil {
			t.Fatal(err)
		}
		const n = 20
		outcomes := make([]lambda.ClaimOutcome, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, outcomes[i], errs[i] = stores[i%len(stores)].ClaimSuggestion(ctx, "c1", id, t0.Add(time.Second))
			})
		}
		wg.Wait()
		count := map[lambda.ClaimOutcome]int{}
		for i, o := range outcomes {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			count[o]++
		}
		if count[lambda.ClaimExecute] != 1 || count[lambda.ClaimAlreadyExecuted] != n-1 {
			t.Fatalf("round %d: outcomes %v, want exactly one execute", round, count)
		}
	}
}

// rawItem reads an item as stored.
func rawItem(t *testing.T, table, pk, sk string) map[string]types.AttributeValue {
	t.Helper()
	out, err := client(endpoint).GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "sk": &types.AttributeValueMemberS{Value: sk}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

func numAttr(t *testing.T, it map[string]types.AttributeValue, name string) int64 {
	t.Helper()
	v, ok := it[name].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("attribute %s missing in %v", name, it)
	}
	i, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// TestTTL: every item carries a ttl (epoch seconds); a suggestion's is at
// least Retention after its current expiry, through every transition.
func TestTTL(t *testing.T) {
	table := newTable(t)
	st := dynamostore.New(client(endpoint), table, dynamostore.Options{})
	ctx := context.Background()
	atLeast := func(what string, it map[string]types.AttributeValue, when time.Time) {
		t.Helper()
		if ttl := numAttr(t, it, "ttl"); ttl < when.Unix() {
			t.Fatalf("%s: ttl %v before %v", what, time.Unix(ttl, 0).UTC(), when)
		}
	}
	if err := st.PutConnection(ctx, lambda.Connection{ID: "c1", ConnectedAt: t0}); err != nil {
		t.Fatal(err)
	}
	atLeast("connection", rawItem(t, table, "conn#c1", "conn"), t0.Add(2*time.Hour))
	if _, err := st.StartAnswer(ctx, "c1", "m1", t0); err != nil {
		t.Fatal(err)
	}
	atLeast("answer", rawItem(t, table, "conn#c1", "answer"), t0.Add(2*time.Hour))

	for _, id := range []string{"s1", "s2"} {
		if err := st.PutSuggestion(ctx, suggestion(id, "c1")); err != nil {
			t.Fatal(err)
		}
	}
	atLeast("suggestion reference", rawItem(t, table, "conn#c1", "sugg#s1"), t0.Add(2*time.Hour))
	atLeast("pending", rawItem(t, table, "sugg#s1", "sugg"), t0.Add(window+lambda.Retention))

	claimAt := t0.Add(20 * time.Second)
	sg, o, err := st.ClaimSuggestion(ctx, "c1", "s1", claimAt)
	if err != nil || o != lambda.ClaimExecute {
		t.Fatal(o, err)
	}
	if !sg.ExpiresAt.Equal(claimAt.Add(window)) || sg.Window != window || !sg.CreatedAt.Equal(t0) || sg.ConnectionID != "c1" || sg.Payload["subject"] == "" {
		t.Fatalf("claimed %+v", sg)
	}
	it := rawItem(t, table, "sugg#s1", "sugg")
	atLeast("executing", it, claimAt.Add(window+lambda.Retention))
	if got := numAttr(t, it, "expiresAt"); got != claimAt.Add(window).UnixNano() {
		t.Fatalf("expiresAt %d", got)
	}
	finishAt := t0.Add(25 * time.Second)
	if err := st.FinishSuggestion(ctx, "c1", "s1", finishAt); err != nil {
		t.Fatal(err)
	}
	atLeast("executed", rawItem(t, table, "sugg#s1", "sugg"), finishAt.Add(window+lambda.Retention))
	withdrawAt := t0.Add(29 * time.Second)
	if err := st.WithdrawSuggestions(ctx, "c1", withdrawAt); err != nil {
		t.Fatal(err)
	}
	atLeast("cancelled", rawItem(t, table, "sugg#s2", "sugg"), withdrawAt.Add(lambda.Retention))
	if status := rawItem(t, table, "sugg#s1", "sugg")["status"].(*types.AttributeValueMemberS).Value; status != "executed" {
		t.Fatalf("withdraw touched an executed suggestion: %s", status)
	}
}

// TestExpiryIgnoresTTL: an item whose ttl has passed but that DynamoDB has
// not deleted yet (TTL deletion is lazy) is still judged by expiresAt.
func TestExpiryIgnoresTTL(t *testing.T) {
	table := newTable(t)
	st := dynamostore.New(client(endpoint), table, dynamostore.Options{})
	ctx := context.Background()
	if err := st.PutSuggestion(ctx, suggestion("s1", "c1")); err != nil {
		t.Fatal(err)
	}
	// a ttl in the past, as if TTL were due
	_, err := client(endpoint).UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(table),
		Key: map[string]types.AttributeValue{
			"pk": &types.AttributeValueMemberS{Value: "sugg#s1"}, "sk": &types.AttributeValueMemberS{Value: "sugg"},
		},
		UpdateExpression:          aws.String("SET #ttl = :old"),
		ExpressionAttributeNames:  map[string]string{"#ttl": "ttl"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":old": &types.AttributeValueMemberN{Value: "1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, o, err := st.ClaimSuggestion(ctx, "c1", "s1", t0.Add(window+time.Nanosecond)); err != nil || o != lambda.ClaimExpired {
		t.Fatalf("after the window: %v %v", o, err)
	}
	if _, o, err := st.ClaimSuggestion(ctx, "c1", "s1", t0.Add(window)); err != nil || o != lambda.ClaimExecute {
		t.Fatalf("at the end of the window: %v %v", o, err)
	}
}

// TestForeignConnectionCannotTouch: a connection that knows another's
// suggestion id can neither claim, withdraw nor delete it, even after trying
// to put a suggestion with the same id.
func TestForeignConnectionCannotTouch(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	if err := st.PutSuggestion(ctx, suggestion("s1", "c1")); err != nil {
		t.Fatal(err)
	}
	if err := st.PutSuggestion(ctx, suggestion("s1", "c2")); !errors.Is(err, lambda.ErrDuplicateSuggestion) {
		t.Fatalf("duplicate from c2: %v", err)
	}
	if err := st.WithdrawSuggestions(ctx, "c2", t0); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteConnection(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishSuggestion(ctx, "c2", "s1", t0); err != nil {
		t.Fatal(err)
	}
	if _, o, err := st.ClaimSuggestion(ctx, "c2", "s1", t0); err != nil || o != lambda.ClaimUnknown {
		t.Fatalf("claim from c2: %v %v", o, err)
	}
	if _, o, err := st.ClaimSuggestion(ctx, "c1", "s1", t0); err != nil || o != lambda.ClaimExecute {
		t.Fatalf("claim from c1: %v %v", o, err)
	}
}

// TestManySuggestions: withdraw and delete find every suggestion of a
// connection.
func TestManySuggestions(t *testing.T) {
	st := newStore(t)
	ctx := context.Background()
	const n = 30
	for i := range n {
		if err := st.PutSuggestion(ctx, suggestion("s"+strconv.Itoa(i), "c1")); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.WithdrawSuggestions(ctx, "c1", t0); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, o, _ := st.ClaimSuggestion(ctx, "c1", "s"+strconv.Itoa(i), t0); o != lambda.ClaimCancelled {
			t.Fatalf("s%d: %v", i, o)
		}
	}
	if err := st.DeleteConnection(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, o, _ := st.ClaimSuggestion(ctx, "c1", "s"+strconv.Itoa(i), t0); o != lambda.ClaimUnknown {
			t.Fatalf("s%d after delete: %v", i, o)
		}
	}
}
