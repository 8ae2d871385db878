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
// The package's files are in layers, each using only those below it:
// values, records (plan, esim, subscription), dataset, cursor, the record
// codec, the store's layout and the file format (layout, boltfile), the
// in-memory content (esim_queue, content), snapshot, batch, db, open, the
// transactions (read_tx, tx), errors and the store. layout_test.go checks
// it.
package state
