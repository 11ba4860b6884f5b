// Store and View: opening a store, the value calls (set/get/ref/stat/...)
// and the explore helpers (peek, search, len, summarize, findRelevant).

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctxkit/environment.h"
#include "ctxkit/explore.h"
#include "ctxkit/index.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"
#include "ctxkit/target.h"
#include "explore/json_forms.h"
#include "index/find_hit_json.h"
#include "node_binding.h"
#include "progress_option.h"
#include "store/json_forms.h"
#include "store_wrap.h"
#include "summary/json_forms.h"

namespace ctxkit::node {

namespace {

using nlohmann::json;

LookupOptions Lookup(const Napi::Object& o) {
  return {.scope = OptString(o, "scope").value_or(""),
          .version = OptUint(o, "version").value_or(0)};
}

// A key or ref (argument `i`) with the lookup of the options at `i + 1`.
Target TargetArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  const std::string text = StringArg(info, i, name);
  Result<Target> target = Target::Parse(text, Lookup(OptionsArg(info, i + 1)));
  if (!target.ok()) ThrowStatus(info.Env(), target.status());
  return std::move(*target);
}

Ref RefArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Result<Ref> ref = ParseRef(StringArg(info, i, name));
  if (!ref.ok()) ThrowStatus(info.Env(), ref.status());
  return std::move(*ref);
}

std::optional<ValueType> TypeOption(const Napi::Object& o) {
  std::optional<std::string> name = OptString(o, "type");
  if (!name) return std::nullopt;
  Result<ValueType> type = ParseValueType(*name);
  if (!type.ok()) ThrowStatus(o.Env(), type.status());
  return *type;
}

// The options of set and append (append ignores countTokens, as
// View::Append does).
SetOptions SetOptionsArg(const Napi::Object& o, ValueType default_type) {
  SetOptions options;
  options.scope = OptString(o, "scope").value_or("");
  options.type = TypeOption(o).value_or(default_type);
  options.persist = OptBool(o, "persist").value_or(true);
  options.tags = OptStrings(o, "tags");
  options.producer = OptString(o, "producer").value_or("");
  options.count_tokens = OptBool(o, "countTokens").value_or(false);
  options.expected_version = OptUint(o, "expectedVersion").value_or(0);
  return options;
}

Napi::Value RefText(Napi::Env env, Ref& ref) {
  return Napi::String::New(env, FormatRef(ref));
}

}  // namespace

// ---------------------------------------------------------------------------
// Store

StoreWrap::StoreWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<StoreWrap>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(),
                               "use Store.open(options) to open a store");
  }
  auto* store = info[0].As<Napi::External<std::shared_ptr<Store>>>().Data();
  store_ = std::move(*store);
}

Napi::Value StoreWrap::Home(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), store_->home());
}

Napi::Value StoreWrap::View(const Napi::CallbackInfo& info) {
  return Sync(info.Env(), [&]() -> Napi::Value {
    Napi::Object o = OptionsArg(info, 0);
    Result<ctxkit::View> view =
        store_->OpenView(OptString(o, "agent").value_or(""),
                         OptString(o, "session").value_or(""));
    if (!view.ok()) ThrowStatus(info.Env(), view.status());
    return ViewWrap::New(info.Env(), store_, std::move(*view));
  });
}

Napi::Value StoreWrap::Stats(const Napi::CallbackInfo& info) {
  std::shared_ptr<Store> store = store_;
  return Async<StoreStats>(
      info.Env(), info.This().As<Napi::Object>(), nullptr,
      [store] { return store->Stats(); },
      [](Napi::Env env, StoreStats& s) {
        json j = store::StatsToJson(s);
        return ToJs(env, j);
      });
}

Napi::Value OpenStore(const Napi::CallbackInfo& info) {
  Napi::Object o = OptionsArg(info, 0);
  Options options;
  Result<std::string> home = ResolveHome(OptString(o, "home").value_or(""));
  if (!home.ok()) ThrowStatus(info.Env(), home.status());
  options.home = *home;
  options.store_url = ResolveStoreUrl(OptString(o, "storeUrl").value_or(""));
  options.read_only = OptBool(o, "readOnly").value_or(false);
  if (std::optional<std::string> d = OptString(o, "durability")) {
    Result<Durability> durability = ParseDurability(*d);
    if (!durability.ok()) ThrowStatus(info.Env(), durability.status());
    options.durability = *durability;
  }
  return Async<std::shared_ptr<Store>>(
      info.Env(), Napi::Object::New(info.Env()), nullptr,
      [options]() -> Result<std::shared_ptr<Store>> {
        Result<std::unique_ptr<Store>> store = Store::Open(options);
        if (!store.ok()) return store.status();
        return std::shared_ptr<Store>(std::move(*store));
      },
      [](Napi::Env env, std::shared_ptr<Store>& store) -> Napi::Value {
        return NativeClassOf(env, NativeClass::kStore)
            .New({Napi::External<std::shared_ptr<Store>>::New(env, &store)});
      });
}

void StoreWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls =
      DefineClass(env, "NativeStore",
                  {InstanceAccessor<&StoreWrap::Home>("home"),
                   InstanceMethod<&StoreWrap::View>("view"),
                   InstanceMethod<&StoreWrap::Stats>("stats")});
  SetNativeClass(env, NativeClass::kStore, cls);
  exports.Set("NativeStore", cls);
  exports.Set("openStore", Napi::Function::New(env, PromisedFn<OpenStore>));
}

// ---------------------------------------------------------------------------
// View

ViewWrap::ViewWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<ViewWrap>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(),
                               "use store.view(options) to open a view");
  }
  auto* parts = info[0].As<Napi::External<Parts>>().Data();
  store_ = std::move(parts->store);
  view_ = std::make_shared<ctxkit::View>(std::move(parts->view));
}

std::shared_ptr<Store> StoreArg(const Napi::CallbackInfo& info, size_t i) {
  if (i >= info.Length() || !info[i].IsObject() ||
      !info[i].As<Napi::Object>().InstanceOf(
          NativeClassOf(info.Env(), NativeClass::kStore))) {
    throw Napi::TypeError::New(info.Env(), "store must be a Store");
  }
  return StoreWrap::Unwrap(info[i].As<Napi::Object>())->store();
}

ViewWrap* ViewArg(const Napi::CallbackInfo& info, size_t i) {
  if (i >= info.Length() || !info[i].IsObject() ||
      !info[i].As<Napi::Object>().InstanceOf(
          NativeClassOf(info.Env(), NativeClass::kView))) {
    throw Napi::TypeError::New(info.Env(), "view must be a View");
  }
  return ViewWrap::Unwrap(info[i].As<Napi::Object>());
}

Napi::Object ViewWrap::New(Napi::Env env, std::shared_ptr<Store> store,
                           ctxkit::View view) {
  Parts parts{std::move(store), std::move(view)};
  return NativeClassOf(env, NativeClass::kView)
      .New({Napi::External<Parts>::New(env, &parts)});
}

template <typename T, typename Work, typename Done>
Napi::Value ViewWrap::Call(const Napi::CallbackInfo& info, Work work,
                           Done done) {
  std::shared_ptr<Store> store = store_;
  std::shared_ptr<ctxkit::View> view = view_;
  return Async<T>(
      info.Env(), info.This().As<Napi::Object>(), nullptr,
      [store, view, work = std::move(work)]() { return work(*view); },
      std::move(done));
}

Napi::Value ViewWrap::Set(const Napi::CallbackInfo& info) {
  std::string key = StringArg(info, 0, "key");
  std::string value = BytesArg(info, 1, "value");
  SetOptions options = SetOptionsArg(OptionsArg(info, 2), ValueType::kText);
  return Call<ctxkit::Ref>(
      info,
      [key = std::move(key), value = std::move(value),
       options = std::move(options)](ctxkit::View& v) {
        return v.Set(key, value, options);
      },
      RefText);
}

// setMany([[key, value], ...], options): View::SetMany, every item with the
// same options: one commit and one sync; all or nothing. Resolves to the
// static refs, in item order.
Napi::Value ViewWrap::SetMany(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsArray()) {
    throw Napi::TypeError::New(
        info.Env(),
        "items must be an array of [key, value] pairs, not " +
            TypeName(info.Length() < 1 ? info.Env().Undefined() : info[0]));
  }
  auto array = info[0].As<Napi::Array>();
  struct Owned {
    std::string key;
    std::string value;
  };
  std::vector<Owned> owned;
  owned.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    const std::string where = "items[" + std::to_string(i) + "]";
    Napi::Value item = array.Get(i);
    if (!item.IsArray() || item.As<Napi::Array>().Length() != 2) {
      throw Napi::TypeError::New(
          info.Env(),
          where + " must be a [key, value] pair, not " + TypeName(item));
    }
    Napi::Value key = item.As<Napi::Array>().Get(uint32_t{0});
    if (!key.IsString()) {
      throw Napi::TypeError::New(
          info.Env(),
          where + "[0] (the key) must be a string, not " + TypeName(key));
    }
    owned.push_back({key.As<Napi::String>().Utf8Value(),
                     BytesOf(item.As<Napi::Array>().Get(uint32_t{1}),
                             where + "[1] (the value)")});
  }
  SetOptions options = SetOptionsArg(OptionsArg(info, 1), ValueType::kText);
  return Call<std::vector<ctxkit::Ref>>(
      info,
      [owned = std::move(owned),
       options = std::move(options)](ctxkit::View& v) {
        std::vector<SetItem> items;
        items.reserve(owned.size());
        for (const Owned& o : owned) items.push_back({o.key, o.value, options});
        return v.SetMany(items);
      },
      [](Napi::Env env, std::vector<ctxkit::Ref>& refs) -> Napi::Value {
        Napi::Array out = Napi::Array::New(env, refs.size());
        for (uint32_t i = 0; i < refs.size(); ++i) {
          out.Set(i, RefText(env, refs[i]));
        }
        return out;
      });
}

// append(key, bytes, {scope, type, persist, tags, producer,
// expectedVersion}): a new version of a stream (or chat) that is the
// previous one plus these bytes; only they are stored.
Napi::Value ViewWrap::Append(const Napi::CallbackInfo& info) {
  std::string key = StringArg(info, 0, "key");
  std::string bytes = BytesArg(info, 1, "value");
  SetOptions options = SetOptionsArg(OptionsArg(info, 2), ValueType::kStream);
  return Call<ctxkit::Ref>(
      info,
      [key = std::move(key), bytes = std::move(bytes),
       options = std::move(options)](ctxkit::View& v) {
        return v.Append(key, bytes, options);
      },
      RefText);
}

// get and getText: a value this instance holds in memory is answered on the
// JavaScript thread (View::TryGet never blocks), saving the two thread
// hops of a worker call; anything else is read on a worker thread.
Napi::Value ViewWrap::GetValue(const Napi::CallbackInfo& info,
                               AsyncCall<std::string>::Done done) {
  Target target = TargetArg(info, 0, "target");
  if (!target.is_ref()) {
    std::optional<Result<std::string>> cached =
        view_->TryGet(target.key(), target.lookup());
    if (cached) return Settled(info.Env(), *cached, done);
  }
  return Call<std::string>(
      info, [target](ctxkit::View& v) { return v.Get(target); },
      std::move(done));
}

Napi::Value ViewWrap::Get(const Napi::CallbackInfo& info) {
  return GetValue(info, ToBuffer);
}

Napi::Value ViewWrap::GetText(const Napi::CallbackInfo& info) {
  return GetValue(info, [](Napi::Env env, std::string& bytes) -> Napi::Value {
    return Napi::String::New(env, bytes);  // Ill-formed UTF-8: U+FFFD.
  });
}

Napi::Value ViewWrap::Resolve(const Napi::CallbackInfo& info) {
  ctxkit::Ref ref = RefArg(info, 0, "ref");
  return Call<std::string>(
      info, [ref](ctxkit::View& v) { return v.Resolve(ref); }, ToBuffer);
}

Napi::Value ViewWrap::ReadRange(const Napi::CallbackInfo& info) {
  ctxkit::Ref ref = RefArg(info, 0, "ref");
  Napi::Object o = OptionsArg(info, 1);
  const uint64_t offset = OptUint(o, "offset").value_or(0);
  const uint64_t length = OptUint(o, "length").value_or(UINT64_MAX);
  return Call<std::string>(
      info,
      [ref, offset, length](ctxkit::View& v) {
        return v.ReadRange(ref, offset, length);
      },
      ToBuffer);
}

Napi::Value ViewWrap::RefOf(const Napi::CallbackInfo& info) {
  Target target = TargetArg(info, 0, "key");
  return Call<ctxkit::Ref>(
      info, [target](ctxkit::View& v) { return v.RefOf(target); }, RefText);
}

Napi::Value ViewWrap::Pin(const Napi::CallbackInfo& info) {
  Target target = TargetArg(info, 0, "target");
  return Call<ctxkit::Ref>(
      info, [target](ctxkit::View& v) { return v.Pin(target); }, RefText);
}

Napi::Value ViewWrap::Stat(const Napi::CallbackInfo& info) {
  Target target = TargetArg(info, 0, "target");
  return Call<json>(
      info,
      [target](ctxkit::View& v) -> Result<json> {
        Result<ObjectMeta> meta = v.Stat(target);
        if (!meta.ok()) return meta.status();
        return store::ObjectMetaToJson(*meta);
      },
      JsonValue);
}

Napi::Value ViewWrap::Remove(const Napi::CallbackInfo& info) {
  std::string key = StringArg(info, 0, "key");
  LookupOptions lookup = Lookup(OptionsArg(info, 1));
  return Call<Done>(
      info,
      [key = std::move(key), lookup](ctxkit::View& v) {
        return FromStatus(v.Remove(key, lookup));
      },
      [](Napi::Env env, Done&) { return env.Undefined(); });
}

Napi::Value ViewWrap::List(const Napi::CallbackInfo& info) {
  Napi::Object o = OptionsArg(info, 0);
  ListFilter filter;
  filter.scope = OptString(o, "scope").value_or("");
  filter.type = TypeOption(o);
  filter.key_prefix = OptString(o, "keyPrefix").value_or("");
  filter.tags = OptStrings(o, "tags");
  filter.limit = OptUint(o, "limit").value_or(filter.limit);
  filter.cursor = OptString(o, "cursor").value_or("");
  return Call<json>(
      info,
      [filter](ctxkit::View& v) -> Result<json> {
        Result<ListPage> page = v.List(filter);
        if (!page.ok()) return page.status();
        json items = json::array();
        for (const ObjectMeta& m : page->items) {
          items.push_back(store::ObjectMetaToJson(m));
        }
        return json{{"items", std::move(items)},
                    {"next_cursor", page->next_cursor}};
      },
      JsonValue);
}

Napi::Value ViewWrap::Versions(const Napi::CallbackInfo& info) {
  Target target = TargetArg(info, 0, "target");
  return Call<json>(
      info,
      [target](ctxkit::View& v) -> Result<json> {
        Result<std::vector<VersionMeta>> versions = v.Versions(target);
        if (!versions.ok()) return versions.status();
        json out = json::array();
        for (const VersionMeta& m : *versions) {
          out.push_back(store::VersionMetaToJson(m, nullptr));
        }
        return out;
      },
      JsonValue);
}

Napi::Value ViewWrap::CountTokens(const Napi::CallbackInfo& info) {
  Target target = TargetArg(info, 0, "target");
  return Call<uint64_t>(
      info, [target](ctxkit::View& v) { return v.CountTokens(target); },
      [](Napi::Env env, uint64_t& n) -> Napi::Value {
        return Napi::Number::New(env, static_cast<double>(n));
      });
}

Napi::Value ViewWrap::Peek(const Napi::CallbackInfo& info) {
  std::string text = StringArg(info, 0, "target");
  Napi::Object o = OptionsArg(info, 1);
  PeekOptions options;
  options.start = OptInt(o, "start").value_or(options.start);
  options.end = OptInt(o, "end").value_or(options.end);
  if (std::optional<std::string> unit = OptString(o, "unit")) {
    Result<PeekUnit> parsed = ParsePeekUnit(*unit);
    if (!parsed.ok()) ThrowStatus(info.Env(), parsed.status());
    options.unit = *parsed;
  }
  options.max_bytes = OptUint(o, "maxBytes").value_or(options.max_bytes);
  options.count_total = OptBool(o, "countTotal").value_or(false);
  options.lookup = Lookup(o);
  return Call<json>(
      info,
      [text = std::move(text), options](ctxkit::View& v) -> Result<json> {
        Result<PeekResult> peek =
            Target::IsRefText(text) ? [&]() -> Result<PeekResult> {
          Result<ctxkit::Ref> ref = ParseRef(text);
          if (!ref.ok()) return ref.status();
          return ctxkit::Peek(v, *ref, options);
        }()
            : ctxkit::Peek(v, text, options);
        if (!peek.ok()) return peek.status();
        json out = explore::PeekToJson(*peek);
        out["text"] = peek->text;
        return out;
      },
      JsonValue);
}

Napi::Value ViewWrap::Search(const Napi::CallbackInfo& info) {
  std::string pattern = StringArg(info, 0, "pattern");
  Napi::Object o = OptionsArg(info, 1);
  SearchOptions options;
  options.regex = OptBool(o, "regex").value_or(false);
  options.case_insensitive = OptBool(o, "caseInsensitive").value_or(false);
  options.max_results = OptUint(o, "maxResults").value_or(options.max_results);
  options.context_lines = static_cast<uint32_t>(
      OptUint(o, "contextLines").value_or(options.context_lines));
  options.keys = OptStrings(o, "keys");
  for (const std::string& r : OptStrings(o, "refs")) {
    Result<ctxkit::Ref> ref = ParseRef(r);
    if (!ref.ok()) ThrowStatus(info.Env(), ref.status());
    options.refs.push_back(std::move(*ref));
  }
  options.scope = OptString(o, "scope").value_or("");
  options.type = TypeOption(o);
  options.key_prefix = OptString(o, "keyPrefix").value_or("");
  return Call<json>(
      info,
      [pattern = std::move(pattern), options](ctxkit::View& v) -> Result<json> {
        Result<SearchResult> r = ctxkit::Search(v, pattern, options);
        if (!r.ok()) return r.status();
        return explore::SearchResultToJson(*r);
      },
      JsonValue);
}

Napi::Value ViewWrap::Len(const Napi::CallbackInfo& info) {
  std::string text = StringArg(info, 0, "target");
  Napi::Object o = OptionsArg(info, 1);
  LenOptions options;
  options.lookup = Lookup(o);
  options.count = OptBool(o, "count").value_or(false);
  return Call<json>(
      info,
      [text = std::move(text), options](ctxkit::View& v) -> Result<json> {
        Result<LenResult> len =
            Target::IsRefText(text) ? [&]() -> Result<LenResult> {
          Result<ctxkit::Ref> ref = ParseRef(text);
          if (!ref.ok()) return ref.status();
          return ctxkit::Len(v, *ref, options);
        }()
            : ctxkit::Len(v, text, options);
        if (!len.ok()) return len.status();
        return explore::LenToJson(*len);
      },
      JsonValue);
}

Napi::Value ViewWrap::Summarize(const Napi::CallbackInfo& info) {
  std::string text = StringArg(info, 0, "target");
  Napi::Object o = OptionsArg(info, 1);
  SummarizeOptions options;
  options.max_tokens = OptUint(o, "maxTokens").value_or(options.max_tokens);
  options.scope = OptString(o, "scope").value_or("");
  if (std::optional<std::string> kind = OptString(o, "summarizer")) {
    Result<SummarizerKind> parsed = ParseSummarizerKind(*kind);
    if (!parsed.ok()) ThrowStatus(info.Env(), parsed.status());
    options.summarizer = *parsed;
  }
  return Call<json>(
      info,
      [text = std::move(text), options](ctxkit::View& v) -> Result<json> {
        Result<Summary> s = ctxkit::Summarize(v, text, options);
        if (!s.ok()) return s.status();
        json out = summary::SummaryToJson(*s);
        out["text"] = s->text;
        return out;
      },
      JsonValue);
}

Napi::Value ViewWrap::FindRelevant(const Napi::CallbackInfo& info) {
  std::string query = StringArg(info, 0, "query");
  Napi::Object o = OptionsArg(info, 1);
  FindOptions options;
  if (std::optional<std::string> ref = OptString(o, "ref")) {
    Result<ctxkit::Ref> parsed = ParseRef(*ref);
    if (!parsed.ok()) ThrowStatus(info.Env(), parsed.status());
    options.ref = std::move(*parsed);
  }
  options.key = OptString(o, "key").value_or("");
  options.scope = OptString(o, "scope").value_or("");
  options.key_prefix = OptString(o, "keyPrefix").value_or("");
  options.top_k = OptUint(o, "topK").value_or(options.top_k);
  options.progress = ProgressOption(o);
  return Call<json>(
      info,
      [query = std::move(query), options](ctxkit::View& v) -> Result<json> {
        Result<FindResult> r = ctxkit::FindRelevant(v, query, options);
        if (!r.ok()) return r.status();
        json hits = json::array();
        for (const FindHit& h : r->hits)
          hits.push_back(index::FindHitToJson(h));
        return json{{"hits", std::move(hits)},
                    {"method", r->method},
                    {"variables_covered", r->variables_covered}};
      },
      JsonValue);
}

void ViewWrap::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(
      env, "NativeView",
      {InstanceMethod<&ViewWrap::P<&ViewWrap::Set>>("set"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::SetMany>>("setMany"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Append>>("append"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Get>>("get"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::GetText>>("getText"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Resolve>>("resolve"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::ReadRange>>("readRange"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::RefOf>>("ref"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Pin>>("pin"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Stat>>("stat"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Remove>>("remove"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::List>>("list"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Versions>>("versions"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::CountTokens>>("countTokens"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Peek>>("peek"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Search>>("search"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Len>>("len"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::Summarize>>("summarize"),
       InstanceMethod<&ViewWrap::P<&ViewWrap::FindRelevant>>("findRelevant")});
  SetNativeClass(env, NativeClass::kView, cls);
  exports.Set("NativeView", cls);
}

void InitStore(Napi::Env env, Napi::Object exports) {
  StoreWrap::Init(env, exports);
  ViewWrap::Init(env, exports);
}

}  // namespace ctxkit::node
