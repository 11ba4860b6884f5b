#include "os/fault_injection.h"

#include <sqlite3.h>

#include <atomic>
#include <cstring>
#include <mutex>

namespace ctxkit::storage::fault {
namespace {

enum Mode : int { kOff = 0, kCounting = 1, kArmed = 2 };

std::atomic<int> g_mode{kOff};
std::atomic<uint64_t> g_seen{0};
std::atomic<uint64_t> g_nth{0};
std::atomic<bool> g_short{false};
std::atomic<bool> g_fired{false};
std::atomic<const char*> g_vfs_name{nullptr};

// ---- The SQLite VFS shim: a file wrapping the real one. ----

struct ShimFile {
  sqlite3_file base;  // Must be first: SQLite sees a sqlite3_file*.
  sqlite3_file* real;
};

sqlite3_vfs* g_real_vfs = nullptr;

sqlite3_file* Real(sqlite3_file* f) {
  return reinterpret_cast<ShimFile*>(f)->real;
}

int ShimClose(sqlite3_file* f) {
  sqlite3_file* real = Real(f);
  int rc = real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
  sqlite3_free(real);
  return rc;
}
int ShimRead(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}
int ShimWrite(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  bool half = false;
  if (ShouldFail(Op::kWrite, &half)) {
    if (half && n > 1) Real(f)->pMethods->xWrite(Real(f), buf, n / 2, off);
    return SQLITE_IOERR_WRITE;
  }
  return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
}
int ShimTruncate(sqlite3_file* f, sqlite3_int64 size) {
  bool half = false;
  if (ShouldFail(Op::kWrite, &half)) return SQLITE_IOERR_TRUNCATE;
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int ShimSync(sqlite3_file* f, int flags) {
  bool half = false;
  if (ShouldFail(Op::kSync, &half)) return SQLITE_IOERR_FSYNC;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int ShimFileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
int ShimLock(sqlite3_file* f, int l) {
  return Real(f)->pMethods->xLock(Real(f), l);
}
int ShimUnlock(sqlite3_file* f, int l) {
  return Real(f)->pMethods->xUnlock(Real(f), l);
}
int ShimCheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
int ShimFileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
int ShimSectorSize(sqlite3_file* f) {
  return Real(f)->pMethods->xSectorSize(Real(f));
}
int ShimDeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}
int ShimShmMap(sqlite3_file* f, int page, int size, int extend,
               void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), page, size, extend, out);
}
int ShimShmLock(sqlite3_file* f, int offset, int n, int flags) {
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShimShmBarrier(sqlite3_file* f) {
  Real(f)->pMethods->xShmBarrier(Real(f));
}
int ShimShmUnmap(sqlite3_file* f, int del) {
  return Real(f)->pMethods->xShmUnmap(Real(f), del);
}
int ShimFetch(sqlite3_file* f, sqlite3_int64 off, int n, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), off, n, out);
}
int ShimUnfetch(sqlite3_file* f, sqlite3_int64 off, void* p) {
  return Real(f)->pMethods->xUnfetch(Real(f), off, p);
}

const sqlite3_io_methods kShimMethods = {
    3,
    ShimClose,
    ShimRead,
    ShimWrite,
    ShimTruncate,
    ShimSync,
    ShimFileSize,
    ShimLock,
    ShimUnlock,
    ShimCheckReservedLock,
    ShimFileControl,
    ShimSectorSize,
    ShimDeviceCharacteristics,
    ShimShmMap,
    ShimShmLock,
    ShimShmBarrier,
    ShimShmUnmap,
    ShimFetch,
    ShimUnfetch,
};

int ShimOpen(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
             int* out_flags) {
  auto* shim = reinterpret_cast<ShimFile*>(file);
  shim->base.pMethods = nullptr;
  shim->real = static_cast<sqlite3_file*>(sqlite3_malloc(g_real_vfs->szOsFile));
  if (shim->real == nullptr) return SQLITE_NOMEM;
  std::memset(shim->real, 0, static_cast<size_t>(g_real_vfs->szOsFile));
  int rc = g_real_vfs->xOpen(g_real_vfs, name, shim->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    sqlite3_free(shim->real);
    return rc;
  }
  shim->base.pMethods = &kShimMethods;
  return SQLITE_OK;
}

int ShimDelete(sqlite3_vfs*, const char* name, int sync_dir) {
  return g_real_vfs->xDelete(g_real_vfs, name, sync_dir);
}
int ShimAccess(sqlite3_vfs*, const char* name, int flags, int* out) {
  return g_real_vfs->xAccess(g_real_vfs, name, flags, out);
}
int ShimFullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return g_real_vfs->xFullPathname(g_real_vfs, name, n, out);
}
int ShimRandomness(sqlite3_vfs*, int n, char* out) {
  return g_real_vfs->xRandomness(g_real_vfs, n, out);
}
int ShimSleep(sqlite3_vfs*, int us) {
  return g_real_vfs->xSleep(g_real_vfs, us);
}
int ShimCurrentTime(sqlite3_vfs*, double* out) {
  return g_real_vfs->xCurrentTime(g_real_vfs, out);
}
int ShimGetLastError(sqlite3_vfs*, int n, char* out) {
  return g_real_vfs->xGetLastError(g_real_vfs, n, out);
}
int ShimCurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) {
  return g_real_vfs->xCurrentTimeInt64(g_real_vfs, out);
}

sqlite3_vfs g_shim_vfs;

}  // namespace

void Arm(uint64_t nth, bool short_write) {
  g_seen = 0;
  g_nth = nth;
  g_short = short_write;
  g_fired = false;
  g_mode = kArmed;
}

void Count() {
  g_seen = 0;
  g_fired = false;
  g_mode = kCounting;
}

void Disarm() { g_mode = kOff; }

uint64_t Seen() { return g_seen.load(); }

bool Fired() { return g_fired.load(); }

bool ShouldFail(Op, bool* short_write) {
  const int mode = g_mode.load(std::memory_order_relaxed);
  if (mode == kOff) return false;
  const uint64_t n = g_seen.fetch_add(1);
  if (mode != kArmed || n != g_nth.load()) return false;
  g_fired = true;
  *short_write = g_short.load();
  return true;
}

void InstallSqliteShim() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_real_vfs = sqlite3_vfs_find(nullptr);
    g_shim_vfs = sqlite3_vfs{};
    g_shim_vfs.iVersion = 2;
    g_shim_vfs.szOsFile = static_cast<int>(sizeof(ShimFile));
    g_shim_vfs.mxPathname = g_real_vfs->mxPathname;
    g_shim_vfs.zName = "ctxkit-faults";
    g_shim_vfs.xOpen = ShimOpen;
    g_shim_vfs.xDelete = ShimDelete;
    g_shim_vfs.xAccess = ShimAccess;
    g_shim_vfs.xFullPathname = ShimFullPathname;
    g_shim_vfs.xDlOpen = g_real_vfs->xDlOpen;
    g_shim_vfs.xDlError = g_real_vfs->xDlError;
    g_shim_vfs.xDlSym = g_real_vfs->xDlSym;
    g_shim_vfs.xDlClose = g_real_vfs->xDlClose;
    g_shim_vfs.xRandomness = ShimRandomness;
    g_shim_vfs.xSleep = ShimSleep;
    g_shim_vfs.xCurrentTime = ShimCurrentTime;
    g_shim_vfs.xGetLastError = ShimGetLastError;
    g_shim_vfs.xCurrentTimeInt64 = ShimCurrentTimeInt64;
    if (sqlite3_vfs_register(&g_shim_vfs, /*makeDflt=*/0) == SQLITE_OK) {
      g_vfs_name = g_shim_vfs.zName;
    }
  });
}

const char* SqliteVfsName() { return g_vfs_name.load(); }

}  // namespace ctxkit::storage::fault
