// Fault injection for the store's file I/O, in the LevelDB style (its
// FaultInjectionTestEnv): tests make the Nth write, fsync or rename from
// now fail, and check the store reopens consistent with every acknowledged
// write.
//
// Covered: every write, fsync and rename of os/file_util.cc (blob
// files and other atomic writes) and, once InstallSqliteShim() has run,
// every xWrite/xSync/xTruncate of the SQLite databases opened afterwards
// (a VFS that wraps the default one). Disarmed (the only state outside
// tests), each hook costs one relaxed atomic load.
//
// Thread safety: thread-safe; one plan at a time for the whole process.

#ifndef CTXKIT_OS_FAULT_INJECTION_H_
#define CTXKIT_OS_FAULT_INJECTION_H_

#include <cstdint>

namespace ctxkit::storage::fault {

enum class Op : uint8_t { kWrite, kSync, kRename };

// Counts I/O operations from zero; the one numbered `nth` fails (EIO).
// `short_write`: a failing write first writes half its bytes.
void Arm(uint64_t nth, bool short_write);
// Counts operations without failing any (to learn how many a sequence
// does).
void Count();
// Back to normal I/O.
void Disarm();
// Operations counted since Arm or Count.
uint64_t Seen();
// True once the armed fault has fired.
bool Fired();

// For the I/O paths: true when this operation must fail. `*short_write`
// tells a failing write to write half first.
bool ShouldFail(Op op, bool* short_write);

// Registers the SQLite VFS shim ("ctxkit-faults") that routes the
// databases' writes and syncs through ShouldFail; SQLite databases opened
// after this call use it. Idempotent.
void InstallSqliteShim();
// The shim's VFS name once installed, else nullptr (the default VFS).
const char* SqliteVfsName();

}  // namespace ctxkit::storage::fault

#endif  // CTXKIT_OS_FAULT_INJECTION_H_
