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
#include "ctxkit/explore.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "explore/json_forms.h"

namespace ctxkit::cli {

namespace {

// A signed decimal (peek bounds may count from the end).
CLI::Validator SignedNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::string_view digits = text;
        if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
        bool ok =
            !digits.empty() && digits.size() <= 18 &&
            digits.find_first_not_of("0123456789") == std::string_view::npos;
        return ok ? "" : "expected an integer, got '" + text + "'";
      },
      "");
}

struct PeekArgs {
  std::string key;
  std::string scope;
  uint64_t version = 0;
  int64_t start = 0;
  int64_t end = 10;
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

Status CheckKeyAndScope(const std::string& key, const std::string& scope,
                        Context& ctx) {
  Status s = ValidateKey(key);
  if (!s.ok()) return s.WithContext("key");
  return CheckScopeName(scope, ctx.options());
}

int RunPeek(Context& ctx, const PeekArgs& a) {
  Status s = CheckKeyAndScope(a.key, a.scope, ctx);
  if (!s.ok()) return ReportError(s);
  Result<PeekUnit> unit = ParsePeekUnit(a.unit);
  if (!unit.ok()) return ReportError(unit.status().WithContext("--unit"));
  PeekOptions o;
  o.start = a.start;
  o.end = a.end;
  if (a.end_pos->count() == 0 && a.end_opt->count() == 0) {
    o.end = a.start >= 0 ? a.start + 10
                         : (a.start + 10 >= 0 ? kPeekToEnd : a.start + 10);
  }
  o.unit = *unit;
  o.max_bytes = a.max_bytes;
  o.count_total = a.count;
  o.lookup = LookupOptions{a.scope, a.version};
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return ReportError(view.status());
  Result<PeekResult> r = Peek(**view, a.key, o);
  if (!r.ok()) return ReportError(r.status());
  if (!ctx.json()) {
    s = WriteStdout(r->text);
    return s.ok() ? kExitOk : ReportError(s);
  }
  // The peek form, and the content around it.
  nlohmann::json j = explore::PeekToJson(*r);
  j["text"] = r->text;
  if (r->unit == PeekUnit::kItems || r->unit == PeekUnit::kChunks) {
    j["parts"] = r->parts;
  }
  PrintJson(j);
  return kExitOk;
}

int RunSearch(Context& ctx, const SearchArgs& a) {
  SearchOptions o;
  o.regex = a.regex;
  o.case_insensitive = a.ignore_case;
  o.max_results = a.max;
  o.context_lines = a.context;
  o.keys = a.keys;
  o.keys.insert(o.keys.end(), a.key_opts.begin(), a.key_opts.end());
  o.scope = a.scope;
  o.key_prefix = a.prefix;
  for (const auto& key : o.keys) {
    Status s = ValidateKey(key);
    if (!s.ok()) return ReportError(s.WithContext("key"));
  }
  Status s = CheckScopeName(a.scope, ctx.options());
  if (!s.ok()) return ReportError(s);
  if (!a.type.empty()) {
    Result<ValueType> type = ParseValueType(a.type);
    if (!type.ok()) return ReportError(type.status().WithContext("--type"));
    o.type = *type;
  }
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return ReportError(view.status());
  Result<SearchResult> r = Search(**view, a.pattern, o);
  if (!r.ok()) return ReportError(r.status());
  if (ctx.json()) {
    PrintJson(explore::SearchResultToJson(*r));
    return kExitOk;
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
  s = WriteStdout(out);
  return s.ok() ? kExitOk : ReportError(s);
}

int RunLen(Context& ctx, const LenArgs& a) {
  Status s = CheckKeyAndScope(a.key, a.scope, ctx);
  if (!s.ok()) return ReportError(s);
  LenOptions o;
  o.lookup = LookupOptions{a.scope, a.version};
  o.count = a.count;
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return ReportError(view.status());
  Result<LenResult> r = Len(**view, a.key, o);
  if (!r.ok()) return ReportError(r.status());
  if (ctx.json()) {
    PrintJson(explore::LenToJson(*r));
    return kExitOk;
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
  s = WriteStdout(t.Render());
  return s.ok() ? kExitOk : ReportError(s);
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
    sub->add_option("KEY", a->key, "The key")->required();
    CLI::Option* start_pos =
        sub->add_option("START", a->start, "First unit (default 0)")
            ->check(SignedNumber());
    a->end_pos =
        sub->add_option("END", a->end, "End unit, exclusive (default START+10)")
            ->check(SignedNumber());
    sub->add_option("--start", a->start, "As START")
        ->type_name("N")
        ->check(SignedNumber())
        ->excludes(start_pos);
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
    sub->add_option("KEY", a->keys, "Variables to search (default: all)");
    sub->add_option("--key,-k", a->key_opts,
                    "A variable to search (repeatable)")
        ->type_name("KEY")
        ->allow_extra_args(false);
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
    sub->add_option("KEY", a->key, "The key")->required();
    sub->add_flag("--count", a->count,
                  "Count lines and items even for a large value (full scan)");
    AddLookup(sub, &a->scope, &a->version);
    table.Add(sub, [a](Context& ctx) { return RunLen(ctx, *a); });
  }
}

}  // namespace ctxkit::cli
