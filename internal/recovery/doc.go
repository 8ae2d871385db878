// Package recovery is a provider process's recovery session. A run killed
// before its CLI saved state (SIGKILL, a lost runner, an out-of-memory
// kill; OpenTofu and remote backends save at most every 20 seconds)
// leaves subscriptions at the service that no state holds, and the next
// apply would buy each again. The provider keeps a journal of its creates
// in the working directory (package journal, which holds the store and
// the rules), and a session is one process's use of it:
//
//   - Open opens the journal, waiting for a killed run's provider to
//     record the answers it sees through, looks at the service for what
//     creates with no answer on record made and for what a lost run made,
//     and asks it for the ids damaged lines show;
//   - the facts of the run come in as the protocol's seam sees them: the
//     subscriptions this state holds (Saw), those gone or removed
//     (Removed), the creates planned (PlanCreate) and whether the process
//     applied (Applied), besides what the process knows of its command
//     line (Config);
//   - the answers go out through journal.Decide, each fact an input of
//     it: Take (a leftover for a create, checked at the service), Create
//     (recorded right before its request is written, and when answered),
//     Report (every leftover taken or named, at the run's end) and End
//     (what the state held, for later processes).
//
// The service is read through Service, which *client.Client is; the
// clock is Config's. Without the journal (MOBILEPLAN_JOURNAL=off) a
// session keeps nothing, and says once what the journal still names.
package recovery
