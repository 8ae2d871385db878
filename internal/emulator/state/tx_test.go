package state

import (
	"errors"
	"iter"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
)

// txOperations is one use of every mutation a Tx has, each on a state made
// by prepare. TestTx_operationsCoverEveryMutation fails when a method of Tx
// has no entry, so the guarantees below cannot miss one.
var txOperations = map[string]func(tx *Tx) error{
	"AddCustomPlan": func(tx *Tx) error {
		tx.AddCustomPlan(Plan{Name: "custom", DataMegaBytes: 5, PeriodDays: 2, PeriodIterations: 1})
		return nil
	},
	"Subscribe": func(tx *Tx) error {
		plan, _ := tx.Plan("plan_003")
		if _, ok := tx.Subscribe(plan, tx.Now()); !ok {
			return errors.New("no eSIM for the subscription")
		}
		return nil
	},
	"UpdateSubscription": func(tx *Tx) error {
		sub, ok := firstSubscription(tx)
		if !ok {
			return errors.New("no subscription")
		}
		sub.ActivatedAt, sub.ExpireAt = ptr(tx.Now()), ptr(tx.Now()+86400)
		sub.Metadata = map[string]string{"team": "field"}
		return tx.UpdateSubscription(sub)
	},
	"UpdateEsim": func(tx *Tx) error {
		e, _ := tx.Esim(ICCID(1))
		e.CountryISO2, e.SmdpState = ptr("FR"), "RELEASED"
		return tx.UpdateEsim(e)
	},
	"AddEsims":     func(tx *Tx) error { tx.AddEsims(3, ptr("asia")); return nil },
	"AdvanceClock": func(tx *Tx) error { return tx.AdvanceClock(86400) },
	"Reset":        func(tx *Tx) error { tx.Reset(testDataset(2, 2)); return nil },
}

// firstSubscription is the oldest subscription. The operations run on the
// committer's goroutine, where a test cannot fail: they return errors.
func firstSubscription(r interface{ Subscriptions() iter.Seq[Subscription] }) (Subscription, bool) {
	for sub := range r.Subscriptions() {
		return sub, true
	}
	return Subscription{}, false
}

func TestTx_operationsCoverEveryMutation(t *testing.T) {
	t.Parallel()
	read := map[string]bool{}
	for i := range reflect.TypeFor[*ReadTx]().NumMethod() {
		read[reflect.TypeFor[*ReadTx]().Method(i).Name] = true
	}
	var mutations []string
	for i := range reflect.TypeFor[*Tx]().NumMethod() {
		if name := reflect.TypeFor[*Tx]().Method(i).Name; !read[name] {
			mutations = append(mutations, name)
		}
	}
	for _, name := range mutations {
		if txOperations[name] == nil {
			t.Errorf("Tx.%s has no entry in txOperations: the guarantees are not tested on it", name)
		}
	}
	for name := range txOperations {
		if !slices.Contains(mutations, name) {
			t.Errorf("txOperations has %s, which is not a mutation of Tx", name)
		}
	}
}

// A committed change is on disk: a reopened store holds what the store
// held after it.
func TestTx_committedChangeSurvivesReopening(t *testing.T) {
	t.Parallel()
	for name, op := range txOperations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := storePath(t, "file")
			s := prepare(t, path, nil)
			if err := s.Update(op); err != nil {
				t.Fatal(err)
			}
			want := dumpOf(t, s)
			if got := reopenedDump(t, s, path); got != want {
				t.Errorf("reopened:\n got %s\nwant %s", got, want)
			}
		})
	}
}

// A change the file refuses is undone whole: Update says so with a
// StorageError, memory is as before, and so is the file.
func TestTx_failedWriteIsUndone(t *testing.T) {
	t.Parallel()
	for name, op := range txOperations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := storePath(t, "file")
			var failing atomic.Bool
			s := prepare(t, path, func() error {
				if failing.Load() {
					return errors.New("no space left on device")
				}
				return nil
			})
			before := dumpOf(t, s)
			failing.Store(true)
			var storage *StorageError
			if err := s.Update(op); !errors.As(err, &storage) {
				t.Fatalf("Update = %v, want a StorageError", err)
			}
			if got := dumpOf(t, s); got != before {
				t.Errorf("memory kept what the file refused:\n got %s\nwant %s", got, before)
			}
			if got := reopenedDump(t, s, path); got != before {
				t.Errorf("the file kept what was refused:\n got %s\nwant %s", got, before)
			}
		})
	}
}

// A change its function refuses is undone whole, with a file or without.
func TestTx_refusedChangeIsUndone(t *testing.T) {
	t.Parallel()
	refused := errors.New("refused")
	for name, op := range txOperations {
		for _, where := range []string{"memory", "file"} {
			t.Run(name+" in "+where, func(t *testing.T) {
				t.Parallel()
				path := storePath(t, where)
				s := prepare(t, path, nil)
				before := dumpOf(t, s)
				err := s.Update(func(tx *Tx) error {
					if err := op(tx); err != nil {
						return err
					}
					return refused
				})
				if !errors.Is(err, refused) {
					t.Fatalf("Update = %v, want the refusal", err)
				}
				if got := dumpOf(t, s); got != before {
					t.Errorf("memory kept a refused change:\n got %s\nwant %s", got, before)
				}
			})
		}
	}
}

// What a read hands out shares nothing with the state: an in-place edit of
// a subscription's Metadata, or of a value a pointer field points to,
// inside an Update that then fails, or after a View, leaves the state as it
// was. And what an update stores is a copy: editing the caller's value
// afterwards changes nothing either.
func TestTx_readsShareNothingWithTheState(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"memory", "file"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			path := storePath(t, where)
			s := prepare(t, path, nil)
			if err := s.Update(txOperations["UpdateSubscription"]); err != nil {
				t.Fatal(err)
			}
			before := dumpOf(t, s)
			edit := func(sub Subscription) {
				sub.Metadata["team"] = "edited"
				sub.Metadata["added"] = "edited"
				*sub.ActivatedAt = 1
				*sub.Remaining.DataBytes = 0
			}
			err := s.Update(func(tx *Tx) error {
				sub, _ := firstSubscription(tx)
				edit(sub)
				e, _ := tx.Esim(sub.EsimICCID)
				*e.SubscriptionID = "sub_other"
				return errors.New("refused")
			})
			if err == nil {
				t.Fatal("the update was not refused")
			}
			var read Subscription
			s.View(func(r *ReadTx) { read, _ = firstSubscription(r) })
			edit(read)
			var stored Subscription
			if err := s.Update(func(tx *Tx) error {
				stored, _ = firstSubscription(tx)
				return tx.UpdateSubscription(stored)
			}); err != nil {
				t.Fatal(err)
			}
			edit(stored)
			if got := dumpOf(t, s); got != before {
				t.Errorf("an edit of a copy reached the state:\n got %s\nwant %s", got, before)
			}
		})
	}
}
