// Package state holds everything the emulated service knows (plans, the
// eSIM inventory, subscriptions, the emulator's clock) and, with a -state
// file, keeps it in a bbolt database.
//
// The only way to change it is a transaction: Store.Update runs a function
// with a *Tx, whose methods are the only mutations there are. Each method
// changes memory, records the write for the database and registers how to
// undo itself in one place, so the change is either stored and kept, or
// refused or not storable and taken back whole. Reads go through
// Store.View, or the *Tx of an Update; both hand out copies.
//
// Reads hand out copies that share nothing with the state (copy on read):
// a record's maps and pointed-to values are the caller's to change, and
// changing them changes nothing in the state, inside an Update or out. A
// Tx's mutations store copies of what they are given (copy on write), so
// the caller's values stay the caller's too.
//
// The package's files are its concepts, as bbolt's are (db.go, tx.go,
// bucket.go, cursor.go, page.go, freelist.go):
//
//   - records.go: the records (Plan, Esim, Subscription and their parts)
//     and the copying helpers every record uses;
//   - dataset.go: the data set a state starts from;
//   - cursor.go: the sealed page cursors;
//   - format.go: the -state file's format: the buckets and meta keys, the
//     record codec, and the checks of bbolt's pages before bbolt opens a
//     file;
//   - content.go: what the store holds in memory, with its eSIM queues;
//   - snapshot.go: the content as stored and read back, and its checks;
//   - batch.go: what one change writes to the file;
//   - open.go: opening a state file, from the checks to the records read
//     back, and migrating the earlier JSON format;
//   - read_tx.go: the read transaction, ReadTx;
//   - tx.go: the write transaction, Tx;
//   - errors.go: the errors a caller may test for;
//   - store.go: Store, its Options, and the group commit.
//
// Each file uses only files below it; layout_test.go computes that order
// from what each file uses, and fails when two files use each other.
package state
