// Exploring stored variables by handle: peek at a slice, search for a
// pattern, and measure length — each reading only what it needs.
//
// These are the SPEC-25.03 helpers (`peek`, `search`, `len`) over the
// store: an agent holds a key or a ref, never the whole value, and asks
// for the part it wants.
//
//   auto slice = ctxkit::Peek(view, "logs/build", {.start = 0, .end = 20});
//   // slice->text: the first 20 lines; slice->total: the line count when
//   // known cheaply (see PeekResult::total).
//   auto hits = ctxkit::Search(view, "error", {.case_insensitive = true});
//   // hits->matches: key, 1-based line, byte offset, preview.
//
// Streaming. Peek and Len read through View::ReadRange in blocks (64 KiB
// growing to 1 MiB) and never load a value whole: peeking lines near the
// start of a 1 GiB value reads a few KiB. Search reads through View::Scan
// (blob files mapped and searched in place, nothing copied into the
// memory tier) and holds one 256 KiB piece plus a line split across two
// pieces (at most about 16 MiB) per variable being searched (one per
// thread, see Threads below). JSON items are
// found by a structural scan that also stops once the wanted items are
// complete. A full scan happens only when an answer needs the whole value:
// a negative index (counted from the end), PeekOptions::count_total, or
// LenOptions::count.
//
// Consistency. A key is resolved once to its current version, and every
// read of one call is pinned to that version (a static ref), so a
// concurrent Set or Append never tears a slice. A dynamic ref that the view
// cannot Stat (a capability for another agent's scope) is read as it
// stands; its recorded size bounds the read.
//
// Errors. No exceptions: every function returns Result<T>. NotFound for a
// missing key; PermissionDenied for another agent's or session's scope
// named explicitly; InvalidArgument for a bad pattern, regex or option;
// FailedPrecondition for a unit that does not apply (items of a value that
// is not a JSON array or object); Unavailable for a session-only value held
// by another process.
//
// Caching. Line indexes built by full scans are kept in a process-wide,
// size-bounded (32 MiB) in-memory LRU keyed by (store, object id,
// version), so repeated line seeks into a big value do not rescan it.
// Nothing is persisted.
//
// Threads. Search over several variables (more than 4 MiB in all) uses
// up to one thread per hardware thread (at most 8), started for the call
// and joined before it returns: each variable is searched on one thread,
// and the hits are merged in variable order, so the result (matches, their
// order, max_results, every count) is the one a search of one variable
// after another gives.
//
// Thread safety: all functions are thread-safe (as View is).

#ifndef CTXKIT_EXPLORE_H_
#define CTXKIT_EXPLORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/target.h"

namespace ctxkit {

// ---------------------------------------------------------------------------
// peek

// What PeekOptions::start/end count.
enum class PeekUnit : uint8_t {
  // By type: json → items when the value is an array or object (else
  // lines); stream → chunks; every other type → lines.
  kAuto = 0,
  // Lines ending in '\n' (a final line without one counts). The slice text
  // keeps the newlines.
  kLines,
  // Raw bytes (no UTF-8 adjustment: a slice may split a character).
  kBytes,
  // Top-level elements of a JSON array, or members of a JSON object in
  // document order. Any value type whose content is a JSON array or object.
  // A chat stored one message per line (docs/sessions.md): its lines, one
  // message each.
  kItems,
  // Streams: one chunk per append (version v's chunk is the bytes version
  // v added). Other types, and streams whose history the view cannot list
  // (a ref into another agent's scope): fixed 64 KiB blocks, reported in
  // PeekResult::chunk_bytes.
  kChunks,
};

// "auto", "lines", "bytes", "items", "chunks".
std::string_view PeekUnitName(PeekUnit unit);
// InvalidArgument for any other name.
Result<PeekUnit> ParsePeekUnit(std::string_view name);

// An `end` that means "to the end".
inline constexpr int64_t kPeekToEnd = INT64_MAX;

// The fixed chunk size for non-stream values (see PeekUnit::kChunks).
inline constexpr uint64_t kFixedChunkBytes = 64ull << 10;

struct PeekOptions {
  // Python slice semantics on 0-based units: [start, end), negative values
  // count from the end (they need the total: a full scan for lines and
  // items), out-of-range bounds are clamped, start >= end gives an empty
  // slice. Never an error.
  int64_t start = 0;
  int64_t end = 10;
  PeekUnit unit = PeekUnit::kAuto;
  // The slice text is cut at this many bytes (lines and items: also before
  // a character the cut would split); PeekResult::truncated says so.
  // 1 B - 1 GiB.
  uint64_t max_bytes = 1ull << 20;
  // Compute PeekResult::total even when that needs a full scan.
  bool count_total = false;
  // For the by-key overload: the scope to look in and a version (0: the
  // latest). Ignored by the by-ref overload.
  LookupOptions lookup;
};

struct PeekResult {
  // The version read: a static ref when the key or ref could be pinned.
  Ref ref;
  PeekUnit unit = PeekUnit::kLines;  // Never kAuto: the unit used.
  // The slice. Lines and bytes: the value's bytes verbatim. Items: a JSON
  // array `[i, j, ...]` or object `{"k": v, ...}` of the selected items,
  // each verbatim, joined by ", ". Chunks: the chunks' bytes concatenated.
  std::string text;
  // Items and chunks: each selected unit verbatim (text without the
  // brackets and separators). Empty for lines and bytes.
  std::vector<std::string> parts;
  // The slice actually returned, in `unit`s: [start, end), clamped.
  uint64_t start = 0;
  uint64_t end = 0;
  // The number of units in the whole value. Bytes and chunks: always.
  // Lines and items: when known without extra work (the scan reached the
  // end, a cached index) or when count_total / a negative index asked.
  std::optional<uint64_t> total;
  uint64_t total_bytes = 0;  // Size of the value.
  // Where the slice lies in the value, in bytes: [byte_begin, byte_end).
  uint64_t byte_begin = 0;
  uint64_t byte_end = 0;
  // True when the text stops short of unit `end` because of max_bytes: the
  // last unit in [start, end) is then only partly in `text` (continue with
  // unit bytes from byte_end). `end` is always > start when the slice is
  // not empty, so paging by `end` makes progress.
  bool truncated = false;
  // kChunks only: 0 when chunks are appends, else the fixed chunk size.
  uint64_t chunk_bytes = 0;
  // Bytes this call read from the store (its whole cost in I/O).
  uint64_t bytes_read = 0;
};

// A slice of the value under `key` (lookup per options.lookup).
Result<PeekResult> Peek(View& view, std::string_view key,
                        const PeekOptions& options = {});
// A slice of the value a ref names (a capability: any scope).
Result<PeekResult> Peek(View& view, const Ref& ref,
                        const PeekOptions& options = {});
// Either, as `target` names it: its key with target.lookup() (not
// options.lookup), or its ref.
Result<PeekResult> Peek(View& view, const Target& target,
                        const PeekOptions& options = {});

// ---------------------------------------------------------------------------
// search

struct SearchOptions {
  // false: `pattern` is a literal string (case-sensitive literals take a
  // vectorized fast path). true: RE2 syntax
  // (https://github.com/google/re2/wiki/ Syntax), linear time in the input
  // whatever the pattern.
  bool regex = false;
  // Unicode simple case folding (literal or regex).
  bool case_insensitive = false;
  // Stop after this many matches (1 - 1,000,000).
  size_t max_results = 10;
  // Lines of context before and after each match (0 - 100).
  uint32_t context_lines = 0;
  // Bytes of each preview and context line (16 - 65,536).
  size_t preview_bytes = 200;
  // What to search. Keys (looked up in `scope`) and refs (capabilities) are
  // searched in the order given; when both are empty, every variable the
  // view lists (View::List with `scope`, `type` and `key_prefix`, every
  // page, ordered by key then scope) — never another agent's or session's.
  std::vector<std::string> keys;
  std::vector<Ref> refs;
  ScopeName scope;
  std::optional<ValueType> type;
  std::string key_prefix;
  // Listed variables whose key starts with this are not searched ("":
  // none); keys and refs given are searched whatever their key. The agent
  // tools skip a session's own objects (its chat, records, index).
  std::string skip_key_prefix;
};

struct SearchLine {
  uint64_t line = 0;  // 1-based.
  std::string text;
};

struct SearchMatch {
  std::string key;
  Ref ref;                    // The version searched (static when pinned).
  uint64_t line = 0;          // 1-based line number.
  uint64_t byte_offset = 0;   // Of the match in the value.
  uint64_t line_offset = 0;   // Of the line's first byte.
  uint64_t match_length = 0;  // Bytes.
  // The matching line, or a window of it around the match when it is
  // longer than preview_bytes (preview_truncated). Cut on UTF-8 boundaries;
  // invalid UTF-8 and control characters (but tab) shown as U+FFFD.
  std::string preview;
  bool preview_truncated = false;
  std::vector<SearchLine> before;  // context_lines before, oldest first.
  std::vector<SearchLine> after;   // context_lines after.
};

struct SearchResult {
  // In variable order, then line order; one per matching line (its
  // leftmost match).
  std::vector<SearchMatch> matches;
  // The search stopped at max_results: more matches may exist.
  bool truncated = false;
  uint64_t variables_searched = 0;
  uint64_t bytes_read = 0;
  // Listed variables that vanished or became unreadable while the search
  // ran ("<key>: <status>"); not errors.
  std::vector<std::string> skipped;
};

// Searches line by line, as grep: a match never spans lines ('\n' is never
// matched, '^'/'$' match at line boundaries), one match per line. Values
// of every type are searched as bytes (JSON as its text; binary too). A
// line longer than 16 MiB may be searched in windows of about 16 MiB; a
// match straddling a window boundary in such a line is missed.
// InvalidArgument for options out of range, a
// pattern containing a newline, or a regex RE2 rejects (its message);
// NotFound for a key in `keys` that does not exist.
Result<SearchResult> Search(View& view, std::string_view pattern,
                            const SearchOptions& options = {});

// ---------------------------------------------------------------------------
// len

struct LenOptions {
  // For the by-key overload, as PeekOptions::lookup.
  LookupOptions lookup;
  // Count lines and items even when that needs a full scan of a value
  // larger than count_limit_bytes.
  bool count = false;
  // Values up to this size are counted anyway (a cheap scan).
  uint64_t count_limit_bytes = 16ull << 20;
};

struct LenResult {
  Ref ref;
  ValueType type = ValueType::kText;
  uint64_t bytes = 0;  // Always; from metadata, nothing is read.
  // Lines (PeekUnit::kLines rules): counted when the value is small, when
  // `count`, or from a cached line index; else absent.
  std::optional<uint64_t> lines;
  // Items: when the value is a JSON array or object (or a chat stored one
  // message per line) and counted as lines.
  std::optional<uint64_t> items;
  // Chunks (PeekUnit::kChunks rules): streams only.
  std::optional<uint64_t> chunks;
  uint64_t bytes_read = 0;
};

Result<LenResult> Len(View& view, std::string_view key,
                      const LenOptions& options = {});
Result<LenResult> Len(View& view, const Ref& ref,
                      const LenOptions& options = {});

}  // namespace ctxkit

#endif  // CTXKIT_EXPLORE_H_
