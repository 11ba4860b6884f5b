// Verbs that explore a variable without reading it whole: peek, search,
// len (include/ctxkit/explore.h).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "explore/json_forms.h"

namespace ctxkit::cli {

namespace {

// A signed decimal of at most 18 digits (peek bounds may count from the
// end).
std::optional<int64_t> ParseSigned(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  if (digits.empty() || digits.size() > 18 ||
      digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  int64_t n = 0;
  for (char c : digits) n = n * 10 + (c - '0');
  return negative ? -n : n;
}

CLI::Validator SignedNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return ParseSigned(text) ? ""
                                 : "expected an integer, got '" + text + "'";
      },
      "");
}

// peek's START: an integer, or a Python slice START:END with either side
// optional ("100:" and "-200:" run to the end, ":20" is "0:20").
struct PeekSlice {
  int64_t start = 0;
  std::optional<int64_t> end;  // Set only by the slice form.
};

std::optional<PeekSlice> ParsePeekStart(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    std::optional<int64_t> start = ParseSigned(text);
    if (!start) return std::nullopt;
    return PeekSlice{*start, std::nullopt};
  }
  std::string_view left = text.substr(0, colon);
  std::string_view right = text.substr(colon + 1);
  PeekSlice slice{0, kPeekToEnd};
  if (!left.empty()) {
    std::optional<int64_t> start = ParseSigned(left);
    if (!start) return std::nullopt;
    slice.start = *start;
  }
  if (!right.empty()) {
    slice.end = ParseSigned(right);
    if (!slice.end) return std::nullopt;
  }
  return slice;
}

CLI::Validator PeekStart() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return ParsePeekStart(text) ? ""
                                    : "expected an integer or a slice "
                                      "START:END (either side optional), "
                                      "got '" +
                                          text + "'";
      },
      "");
}

struct PeekArgs {
  std::string key;
  std::string scope;
  uint64_t version = 0;
  std::string start_text;  // START: an integer or a slice.
  int64_t start = 0;       // --start.
  int64_t end = 10;
  CLI::Option* start_pos = nullptr;
  CLI::Option* end_pos = nullptr;
  CLI::Option* end_opt = nullptr;
  std::string unit = "auto";
  uint64_t max_bytes = 1ull << 20;
  bool count = false;
};

struct SearchArgs {
  std::string pattern;
  std::vector<std::string> keys;      // Positional.
  std::vector<std::string> key_opts;  // --key.
  std::string scope;
  std::string prefix;
  std::string type;
  bool regex = false;
  bool ignore_case = false;
  uint64_t max = 10;
  uint32_t context = 0;
};

struct LenArgs {
  std::string key;
  std::string scope;
  uint64_t version = 0;
  bool count = false;
};

Status RunPeek(Context& ctx, const PeekArgs& a) {
  Result<Target> target =
      ParseKeyOrRef(a.key, a.scope, a.version, ctx.options());
  if (!target.ok()) return target.status();
  Status s;
  Result<PeekUnit> unit = ParsePeekUnit(a.unit);
  if (!unit.ok()) return unit.status().WithContext("--unit");
  PeekOptions o;
  o.start = a.start;
  o.end = a.end;
  const bool end_given = a.end_pos->count() > 0 || a.end_opt->count() > 0;
  if (a.start_pos->count() > 0) {
    PeekSlice slice = *ParsePeekStart(a.start_text);  // Validated by CLI11.
    o.start = slice.start;
    if (slice.end) {
      if (end_given) {
        return Status::InvalidArgument(
            "START '" + a.start_text +
            "' is a slice and already has its end; drop END / --end");
      }
      o.end = *slice.end;
    }
  }
  if (!end_given && a.start_text.find(':') == std::string::npos) {
    // Like x[-200:] in Python, a negative START alone runs to the end.
    o.end = o.start >= 0 ? o.start + 10 : kPeekToEnd;
  }
  o.unit = *unit;
  o.max_bytes = a.max_bytes;
  o.count_total = a.count;
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<Ref> pinned = (*view)->Pin(*target);
  if (!pinned.ok()) return pinned.status();
  Result<PeekResult> r = Peek(**view, *pinned, o);
  if (!r.ok()) return r.status();
  if (!ctx.json()) return WriteStdout(r->text);
  // The peek form, and the content around it.
  nlohmann::json j = explore::PeekToJson(*r);
  j["text"] = r->text;
  if (r->unit == PeekUnit::kItems || r->unit == PeekUnit::kChunks) {
    j["parts"] = r->parts;
  }
  PrintJson(j);
  return Status::Ok();
}

Status RunSearch(Context& ctx, const SearchArgs& a) {
  SearchOptions o;
  o.regex = a.regex;
  o.case_insensitive = a.ignore_case;
  o.max_results = a.max;
  o.context_lines = a.context;
  o.scope = a.scope;
  o.key_prefix = a.prefix;
  std::vector<std::string> targets = a.keys;
  targets.insert(targets.end(), a.key_opts.begin(), a.key_opts.end());
  for (const auto& text : targets) {
    // Keys take --scope; refs name their own.
    Result<Target> t = ParseKeyOrRef(text, "", 0, ctx.options());
    if (!t.ok()) return t.status();
    if (t->is_ref()) {
      o.refs.push_back(*t->ref());
    } else {
      o.keys.push_back(t->key());
    }
  }
  CTXKIT_RETURN_IF_ERROR(CheckScopeName(a.scope, ctx.options()));
  if (!a.type.empty()) {
    Result<ValueType> type = ParseValueType(a.type);
    if (!type.ok()) return type.status().WithContext("--type");
    o.type = *type;
  }
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<SearchResult> r = Search(**view, a.pattern, o);
  if (!r.ok()) return r.status();
  if (ctx.json()) {
    PrintJson(explore::SearchResultToJson(*r));
    return Status::Ok();
  }
  // grep's layout: KEY:LINE:preview, context as KEY-LINE-text, groups
  // separated by "--" when there is context.
  std::string out;
  for (size_t i = 0; i < r->matches.size(); ++i) {
    const SearchMatch& m = r->matches[i];
    if (a.context > 0 && i > 0) out += "--\n";
    for (const auto& l : m.before) {
      out += m.key + "-" + std::to_string(l.line) + "-" + l.text + "\n";
    }
    out += m.key + ":" + std::to_string(m.line) + ":" + m.preview + "\n";
    for (const auto& l : m.after) {
      out += m.key + "-" + std::to_string(l.line) + "-" + l.text + "\n";
    }
  }
  if (r->truncated) {
    out += "-- stopped at --max " + std::to_string(a.max) +
           "; more matches may exist\n";
  }
  return WriteStdout(out);
}

Status RunLen(Context& ctx, const LenArgs& a) {
  Result<Target> target =
      ParseKeyOrRef(a.key, a.scope, a.version, ctx.options());
  if (!target.ok()) return target.status();
  Status s;
  LenOptions o;
  o.count = a.count;
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<Ref> pinned = (*view)->Pin(*target);
  if (!pinned.ok()) return pinned.status();
  Result<LenResult> r = Len(**view, *pinned, o);
  if (!r.ok()) return r.status();
  if (ctx.json()) {
    PrintJson(explore::LenToJson(*r));
    return Status::Ok();
  }
  Table t({});
  t.AddRow({"type", std::string(ValueTypeName(r->type))});
  t.AddRow({"bytes", GroupedNumber(r->bytes)});
  auto row = [&](const char* name, const std::optional<uint64_t>& v) {
    if (v.has_value()) t.AddRow({name, GroupedNumber(*v)});
  };
  row("lines", r->lines);
  row("items", r->items);
  row("chunks", r->chunks);
  return WriteStdout(t.Render());
}

void AddLookup(CLI::App* sub, std::string* scope, uint64_t* version) {
  sub->add_option("--scope,-s", *scope,
                  "Look only in this scope (global, agent, session or "
                  "agent:<id>/session:<id>); default session, agent, global")
      ->type_name("SCOPE");
  sub->add_option("--version", *version,
                  "Version N of the history (default: the latest)")
      ->type_name("N")
      ->check(UnsignedNumber());
}

}  // namespace

void RegisterExploreCommands(CLI::App& app, CommandTable& table) {
  {
    auto a = std::make_shared<PeekArgs>();
    CLI::App* sub = app.add_subcommand(
        "peek",
        "Print units [START, END) of KEY without reading the rest: lines "
        "(text), JSON items, stream chunks, or bytes. Python slice rules: "
        "0-based, END exclusive, negative counts from the end, clamped");
    sub->add_option("KEY", a->key, "The key, or a ref (ck:...)")->required();
    a->start_pos =
        sub->add_option("START", a->start_text,
                        "First unit (default 0); negative counts from the "
                        "end. Or a slice START:END, either side optional: "
                        "100: and -200: run to the end")
            ->check(PeekStart());
    a->end_pos =
        sub->add_option("END", a->end,
                        "End unit, exclusive (default START+10, or the end "
                        "when START is negative)")
            ->check(SignedNumber());
    sub->add_option("--start", a->start, "As START")
        ->type_name("N")
        ->check(SignedNumber())
        ->excludes(a->start_pos);
    a->end_opt = sub->add_option("--end", a->end, "As END")
                     ->type_name("N")
                     ->check(SignedNumber())
                     ->excludes(a->end_pos);
    sub->add_option("--unit,-u", a->unit,
                    "auto (default: json items, stream chunks, else lines), "
                    "lines, bytes, items, chunks")
        ->type_name("UNIT");
    sub->add_option("--max-bytes", a->max_bytes,
                    "Cut the slice at this many bytes (default 1 MiB)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_flag("--count", a->count,
                  "Report the total even when it needs a full scan");
    AddLookup(sub, &a->scope, &a->version);
    table.Add(sub, [a](Context& ctx) { return RunPeek(ctx, *a); });
  }
  {
    auto a = std::make_shared<SearchArgs>();
    CLI::App* sub = app.add_subcommand(
        "search",
        "Find lines matching PATTERN in KEYs, or in every variable the view "
        "sees. Literal by default; --regex for RE2 syntax (linear time)");
    sub->add_option("PATTERN", a->pattern, "A literal string or RE2 regex")
        ->required();
    sub->add_option("KEY", a->keys,
                    "Variables (keys or refs) to search (default: all)");
    AddRepeatableOption(sub, "--key,-k", &a->key_opts,
                        "A variable to search (repeatable)")
        ->type_name("KEY");
    sub->add_flag("--regex,-E", a->regex, "PATTERN is an RE2 regex");
    sub->add_flag("-i,--ignore-case", a->ignore_case, "Case-insensitive");
    sub->add_option("--max,-m", a->max, "Stop after N matches (default 10)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--context,-C", a->context,
                    "N lines of context around each match (0-100)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--scope,-s", a->scope, "Only this scope")
        ->type_name("SCOPE");
    sub->add_option("--prefix", a->prefix, "Only keys starting with P")
        ->type_name("P");
    sub->add_option("--type,-t", a->type, "Only values of this type")
        ->type_name("TYPE");
    table.Add(sub, [a](Context& ctx) { return RunSearch(ctx, *a); });
  }
  {
    auto a = std::make_shared<LenArgs>();
    CLI::App* sub = app.add_subcommand(
        "len",
        "Size of KEY: bytes (metadata only), lines and JSON items (counted "
        "for values up to 16 MiB, or with --count), stream chunks");
    sub->add_option("KEY", a->key, "The key, or a ref (ck:...)")->required();
    sub->add_flag("--count", a->count,
                  "Count lines and items even for a large value (full scan)");
    AddLookup(sub, &a->scope, &a->version);
    table.Add(sub, [a](Context& ctx) { return RunLen(ctx, *a); });
  }
}

}  // namespace ctxkit::cli
