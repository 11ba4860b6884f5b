// Verbs that move values in and out: set, append, get, resolve, rm.

#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "os/file_util.h"
#include "os/posix_io.h"

namespace ctxkit::cli {

namespace {

constexpr char kNoPersistHelp[] =
    "Session-only value: kept in this process's memory tier, never written "
    "to disk. A ctxkit command is one process, so the value is gone when the "
    "command exits and its ref resolves nowhere else (exit 5); meaningful "
    "for library users and `demo`";

// Options shared by the writing verbs.
struct WriteArgs {
  std::string key;
  std::string value;
  CLI::Option* value_opt = nullptr;
  std::string file;
  std::string type = "text";
  std::string scope;
  std::vector<std::string> tags;
  bool no_persist = false;
  uint64_t if_version = 0;
};

// Options shared by the reading verbs.
struct ReadArgs {
  std::string key;  // Or the ref string for `resolve`.
  std::string scope;
  uint64_t version = 0;
  ByteRangeArgs range;
};

void AddWriteOptions(CLI::App* sub, WriteArgs* a, bool with_type) {
  sub->add_option("KEY", a->key, "The key (UTF-8, 1-256 bytes)")->required();
  a->value_opt = sub->add_option(
      "VALUE", a->value, "The value; omitted or \"-\" reads stdin to EOF");
  sub->add_option("--file,-f", a->file, "Read the value from FILE")
      ->type_name("FILE")
      ->excludes(a->value_opt);
  if (with_type) {
    sub->add_option("--type,-t", a->type,
                    "text (default), json (validated), memory, result, "
                    "stream, toolcall, file, note, chat")
        ->type_name("TYPE");
  }
  sub->add_option("--scope,-s", a->scope,
                  "global (default), agent or session: the view's own scope "
                  "of that kind")
      ->type_name("SCOPE");
  AddRepeatableOption(sub, "--tag", &a->tags, "Tag the object (repeatable)")
      ->type_name("TAG");
  sub->add_flag("--no-persist", a->no_persist, kNoPersistHelp);
  sub->add_option("--if-version", a->if_version,
                  "Compare-and-set: write only while KEY's latest version is "
                  "N (else exit 4, nothing written)")
      ->type_name("N")
      ->check(UnsignedNumber());
}

void AddReadOptions(CLI::App* sub, ReadArgs* a, bool with_version) {
  if (with_version) {
    sub->add_option("--version", a->version,
                    "Version N of the history (default: the latest)")
        ->type_name("N")
        ->check(UnsignedNumber());
  }
  AddByteRangeOptions(sub, &a->range);
}

// The flags as SetOptions. The store checks the key, tags and value (the
// one gate every face shares); only what names a flag is checked here.
Result<SetOptions> PrepareWrite(const WriteArgs& a, Context& ctx) {
  Result<ValueType> type = ParseValueType(a.type);
  if (!type.ok()) return type.status().WithContext("--type");
  Status s = CheckScopeName(a.scope, ctx.options());
  if (!s.ok()) return s;
  SetOptions opts;
  opts.type = *type;
  opts.scope = a.scope;
  opts.persist = !a.no_persist;
  opts.tags = a.tags;
  opts.producer = ctx.Producer();
  opts.expected_version = a.if_version;
  return opts;
}

Status PrintRef(Context& ctx, const Ref& ref) {
  if (ctx.json()) {
    PrintJson(RefToJson(ref));
  } else {
    CTXKIT_RETURN_IF_ERROR(WriteStdout(FormatRef(ref) + "\n"));
  }
  return Status::Ok();
}

// set --file of a regular file: the store copies a large one in the kernel
// (View::SetFile), counting its tokens at write as it counts any value's
// (Options::count_tokens_max_bytes).
Status SetRegularFile(Context& ctx, const WriteArgs& a,
                      const SetOptions& opts) {
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<Ref> ref = (*view)->SetFile(a.key, a.file, opts);
  if (!ref.ok()) return ref.status();
  return PrintRef(ctx, *ref);
}

Status RunSet(Context& ctx, const WriteArgs& a) {
  Result<SetOptions> opts = PrepareWrite(a, ctx);
  if (!opts.ok()) return opts.status();
  Result<std::string> value = std::string();
  if (!a.file.empty()) {
    // Opened before the store, so that its errors come first.
    Result<storage::UniqueFd> fd = OpenFile(a.file);
    if (!fd.ok()) return fd.status();
    struct stat st;
    if (opts->type != ValueType::kJson && ::fstat(fd->get(), &st) == 0 &&
        S_ISREG(st.st_mode)) {
      return SetRegularFile(ctx, a, *opts);
    }
    value = storage::ReadToEnd(fd->get(), a.file);  // A pipe, or json.
  } else {
    value = ReadValue(a.value_opt->count() > 0, a.value, "");
  }
  if (!value.ok()) return value.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<Ref> ref = (*view)->Set(a.key, *value, *opts);
  if (!ref.ok()) return ref.status();
  return PrintRef(ctx, *ref);
}

Status RunAppend(Context& ctx, const WriteArgs& a) {
  Result<SetOptions> opts = PrepareWrite(a, ctx);
  if (!opts.ok()) return opts.status();
  opts->type = ValueType::kStream;
  Result<std::string> data =
      ReadValue(a.value_opt->count() > 0, a.value, a.file);
  if (!data.ok()) return data.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<Ref> ref = (*view)->Append(a.key, *data, *opts);
  if (!ref.ok()) return ref.status();
  return PrintRef(ctx, *ref);
}

// Writes the value, or only [offset, offset+length) when either bound is
// given, to stdout as it is read: a piece at a time, so memory stays
// bounded whatever the value's size (blob files are mapped in windows and
// checked chunk by chunk before their bytes are written).
Status EmitValue(View* view, const Ref& ref, const ReadArgs& a) {
  constexpr uint64_t kPieceBytes = 1 << 20;
  Status written = Status::Ok();
  Status s = view->Scan(ref, a.range.offset, a.range.length_or_all(),
                        kPieceBytes, [&written](std::string_view piece) {
                          written = WriteStdout(piece);
                          return written.ok();
                        });
  CTXKIT_RETURN_IF_ERROR(written);
  return s;
}

Status RunGet(Context& ctx, const ReadArgs& a) {
  Result<Target> target =
      ParseKeyOrRef(a.key, a.scope, a.version, ctx.options());
  if (!target.ok()) return target.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<Ref> ref = (*view)->Pin(*target);
  if (!ref.ok()) return ref.status();
  return EmitValue(*view, *ref, a);
}

Status RunResolve(Context& ctx, const ReadArgs& a) {
  Result<Ref> ref = ParseRef(a.key);
  if (!ref.ok()) return ref.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  return EmitValue(*view, *ref, a);
}

Status RunRemove(Context& ctx, const ReadArgs& a) {
  Status s = ValidateKey(a.key);
  if (!s.ok()) return s.WithContext("key");
  CTXKIT_RETURN_IF_ERROR(CheckScopeName(a.scope, ctx.options()));
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  CTXKIT_RETURN_IF_ERROR((*view)->Remove(a.key, LookupOptions{a.scope, 0}));
  if (ctx.json()) {
    PrintJson(nlohmann::json{{"key", a.key}, {"removed", true}});
    return Status::Ok();
  }
  return WriteStdout("removed " + a.key + "\n");
}

}  // namespace

void RegisterValueCommands(CLI::App& app, CommandTable& table) {
  {
    auto a = std::make_shared<WriteArgs>();
    CLI::App* sub = app.add_subcommand(
        "set",
        "Store a value under KEY (a new version if KEY exists); prints its "
        "ref. The CLI persists by default");
    AddWriteOptions(sub, a.get(), /*with_type=*/true);
    table.Add(sub, [a](Context& ctx) { return RunSet(ctx, *a); });
  }
  {
    auto a = std::make_shared<WriteArgs>();
    CLI::App* sub = app.add_subcommand(
        "append",
        "Append bytes to the stream KEY (created when missing); each append "
        "is a new version. Prints its ref");
    AddWriteOptions(sub, a.get(), /*with_type=*/false);
    table.Add(sub, [a](Context& ctx) { return RunAppend(ctx, *a); });
  }
  {
    auto a = std::make_shared<ReadArgs>();
    CLI::App* sub = app.add_subcommand(
        "get", "Write the value of KEY (or a ref) to stdout, byte-exact");
    sub->add_option("KEY", a->key, "The key, or a ref (ck:...)")->required();
    sub->add_option("--scope,-s", a->scope,
                    "Look only in this scope (global, agent, session or "
                    "agent:<id>/session:<id>); default session, agent, global")
        ->type_name("SCOPE");
    AddReadOptions(sub, a.get(), /*with_version=*/true);
    table.Add(sub, [a](Context& ctx) { return RunGet(ctx, *a); });
  }
  {
    auto a = std::make_shared<ReadArgs>();
    CLI::App* sub = app.add_subcommand(
        "resolve",
        "Write the value a ref names to stdout, byte-exact (any scope: a ref "
        "is a capability)");
    sub->add_option("REF", a->key, "A ref string as printed by set or ref")
        ->required();
    AddReadOptions(sub, a.get(), /*with_version=*/false);
    table.Add(sub, [a](Context& ctx) { return RunResolve(ctx, *a); });
  }
  {
    auto a = std::make_shared<ReadArgs>();
    CLI::App* sub = app.add_subcommand(
        "rm", "Remove KEY (a tombstone version; history and static refs stay)");
    sub->add_option("KEY", a->key, "The key")->required();
    sub->add_option("--scope,-s", a->scope, "Scope of the key")
        ->type_name("SCOPE");
    table.Add(sub, [a](Context& ctx) { return RunRemove(ctx, *a); });
  }
}

}  // namespace ctxkit::cli
