// Toolcall objects: the output object plus its JSON sidecar (toolcall.h).

#include "ctxkit/toolcall.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/encoding.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "text/json_parse.h"

namespace ctxkit {
namespace {

constexpr size_t kMaxCallIdBytes = 128;
constexpr size_t kMaxToolBytes = 128;
constexpr size_t kMaxProducerBytes = 256;

bool HasControlChar(std::string_view text) {
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return false;
}

Status ValidateCallId(std::string_view id) {
  if (id.empty() || id.size() > kMaxCallIdBytes) {
    return Status::InvalidArgument("toolcall call_id must be 1-128 bytes");
  }
  for (char c : id) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) {
      return Status::InvalidArgument("toolcall call_id '" + std::string(id) +
                                     "' may contain only [A-Za-z0-9_.-]");
    }
  }
  return Status::Ok();
}

// Cuts `text` to at most `max` bytes without splitting a UTF-8 character.
std::string CutUtf8(std::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  return std::string(text.substr(0, end));
}

// nlohmann's lenient accept(), not text::CheckJson: an output that looks
// like JSON but breaks ctxkit's rules (nested past 512 levels, a raw NUL
// byte) is written as json, and the store's own check refuses it, rather
// than being kept as text under another type.
bool IsJsonContainer(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos) return false;
  if (text[i] != '{' && text[i] != '[') return false;
  return nlohmann::json::accept(text);
}

// The scope name to look an object up in: where Set with `scope` writes.
ScopeName WriteScopeName(const ScopeName& scope) {
  return scope.empty() ? ScopeName("global") : scope;
}

struct Sidecar {
  ToolCall call;  // Without output.
  std::string output_sha256;
  uint64_t output_bytes = 0;
  uint64_t output_version = 0;
  std::string output_type;
};

std::string EncodeSidecar(const Sidecar& s) {
  nlohmann::json j = {{"call_id", s.call.call_id},
                      {"tool", s.call.tool},
                      {"arguments_json", s.call.arguments_json},
                      {"status", s.call.status},
                      {"producer", s.call.producer},
                      {"output_sha256", s.output_sha256},
                      {"output_bytes", s.output_bytes},
                      {"output_version", s.output_version},
                      {"output_type", s.output_type}};
  return j.dump();
}

Result<Sidecar> DecodeSidecar(std::string_view text, std::string_view id) {
  auto bad = [&](std::string_view why) {
    return Status::Corruption("toolcall '" + std::string(id) +
                              "' metadata sidecar: " + std::string(why));
  };
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(text);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  Sidecar s;
  auto str = [&](const char* name, std::string* out) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_string()) return false;
    *out = it->get<std::string>();
    return true;
  };
  auto num = [&](const char* name, uint64_t* out) {
    auto it = j.find(name);
    if (it == j.end() || !it->is_number_unsigned()) return false;
    *out = it->get<uint64_t>();
    return true;
  };
  if (!str("call_id", &s.call.call_id) || !str("tool", &s.call.tool) ||
      !str("arguments_json", &s.call.arguments_json) ||
      !str("status", &s.call.status) || !str("producer", &s.call.producer) ||
      !str("output_sha256", &s.output_sha256) ||
      !str("output_type", &s.output_type) ||
      !num("output_bytes", &s.output_bytes) ||
      !num("output_version", &s.output_version)) {
    return bad("a field is missing or has the wrong type");
  }
  if (s.call.call_id != id) return bad("names another call_id");
  return s;
}

}  // namespace

std::string ToolCallKey(std::string_view call_id) {
  return "toolcall:" + std::string(call_id);
}

std::string ToolCallMetaKey(std::string_view call_id) {
  return "toolcall:" + std::string(call_id) + "#meta";
}

Status ValidateToolCall(const ToolCall& call) {
  CTXKIT_RETURN_IF_ERROR(ValidateCallId(call.call_id));
  if (call.tool.empty() || call.tool.size() > kMaxToolBytes) {
    return Status::InvalidArgument("toolcall tool name must be 1-128 bytes");
  }
  if (HasControlChar(call.tool) || !core::IsValidUtf8(call.tool)) {
    return Status::InvalidArgument(
        "toolcall tool name must be UTF-8 without control characters");
  }
  if (!call.arguments_json.empty() &&
      !ctxkit::text::CheckJson(call.arguments_json, "arguments_json").ok()) {
    return Status::InvalidArgument("toolcall '" + call.call_id +
                                   "': arguments_json is not valid JSON");
  }
  if (call.status != "ok" && call.status != "error" &&
      call.status != "pending") {
    return Status::InvalidArgument(
        "toolcall status must be ok, error or "
        "pending, not '" +
        call.status + "'");
  }
  if (call.producer.size() > kMaxProducerBytes ||
      HasControlChar(call.producer) || !core::IsValidUtf8(call.producer)) {
    return Status::InvalidArgument(
        "toolcall producer must be at most 256 bytes of UTF-8 without "
        "control characters");
  }
  return Status::Ok();
}

Result<Ref> RecordToolCall(View& view, const ToolCall& call,
                           const ScopeName& scope) {
  CTXKIT_RETURN_IF_ERROR(ValidateToolCall(call));
  const std::string key = ToolCallKey(call.call_id);
  const std::string meta_key = ToolCallMetaKey(call.call_id);
  const ScopeName lookup_scope = WriteScopeName(scope);

  Sidecar want;
  want.call = call;
  want.call.output.clear();
  if (want.call.producer.empty()) want.call.producer = "tool:" + call.tool;
  want.output_sha256 = core::ToHex(core::Sha256(call.output));
  want.output_bytes = call.output.size();
  const bool json = IsJsonContainer(call.output);
  want.output_type = json ? "json" : "text";

  // The output object is current when the sidecar describes its latest
  // version with the same content, tool and status (the tags follow the
  // last two); then only changed arguments or producer need a new sidecar
  // version, and an identical re-record writes nothing.
  Result<ObjectMeta> out_meta = view.Stat(key, {.scope = lookup_scope});
  if (!out_meta.ok() && !out_meta.status().IsNotFound()) {
    return out_meta.status();
  }
  bool output_current = false;
  if (out_meta.ok()) {
    Result<std::string> old_text = view.Get(meta_key, {.scope = lookup_scope});
    if (old_text.ok()) {
      Result<Sidecar> old = DecodeSidecar(*old_text, call.call_id);
      if (old.ok() && old->output_version == out_meta->version &&
          old->output_sha256 == want.output_sha256 &&
          old->output_type == want.output_type && old->call.tool == call.tool &&
          old->call.status == call.status) {
        output_current = true;
        want.output_version = out_meta->version;
        if (EncodeSidecar(*old) == EncodeSidecar(want)) {
          return view.Pin(
              key, {.scope = lookup_scope, .version = want.output_version});
        }
      }
    } else if (!old_text.status().IsNotFound()) {
      return old_text.status();
    }
  }

  Ref ref;
  if (!output_current) {
    SetOptions opts;
    opts.scope = scope;
    opts.type = json ? ValueType::kJson : ValueType::kText;
    opts.tags = {"kind:toolcall", CutUtf8("tool:" + call.tool, kMaxTagBytes),
                 "status:" + call.status};
    opts.producer = want.call.producer;
    CTXKIT_ASSIGN_OR_RETURN(ref, view.Set(key, call.output, opts));
    want.output_version = ref.version;
  } else {
    CTXKIT_ASSIGN_OR_RETURN(
        ref,
        view.Pin(key, {.scope = lookup_scope, .version = want.output_version}));
  }
  SetOptions meta_opts;
  meta_opts.scope = scope;
  meta_opts.type = ValueType::kJson;
  meta_opts.tags = {"kind:toolcall-meta"};
  meta_opts.producer = want.call.producer;
  CTXKIT_RETURN_IF_ERROR(
      view.Set(meta_key, EncodeSidecar(want), meta_opts).status());
  return ref;
}

Result<ToolCall> LoadToolCall(View& view, std::string_view call_id,
                              bool with_output) {
  CTXKIT_RETURN_IF_ERROR(ValidateCallId(call_id));
  const std::string meta_key = ToolCallMetaKey(call_id);
  CTXKIT_ASSIGN_OR_RETURN(ObjectMeta side_meta, view.Stat(meta_key));
  const ScopeName scope = side_meta.scope.ToString();
  CTXKIT_ASSIGN_OR_RETURN(std::string text,
                          view.Get(meta_key, {.scope = scope}));
  CTXKIT_ASSIGN_OR_RETURN(Sidecar side, DecodeSidecar(text, call_id));
  const std::string key = ToolCallKey(call_id);
  Result<ObjectMeta> out_meta = view.Stat(key, {.scope = scope});
  if (!out_meta.ok()) {
    if (!out_meta.status().IsNotFound()) return out_meta.status();
    return Status::Corruption("toolcall '" + std::string(call_id) +
                              "' has metadata but no output object");
  }
  if (out_meta->version != side.output_version) {
    return Status::Corruption(
        "toolcall '" + std::string(call_id) + "' metadata describes version " +
        std::to_string(side.output_version) + " but the output is at version " +
        std::to_string(out_meta->version));
  }
  ToolCall call = std::move(side.call);
  if (with_output) {
    CTXKIT_ASSIGN_OR_RETURN(
        call.output,
        view.Get(key, {.scope = scope, .version = side.output_version}));
  }
  return call;
}

}  // namespace ctxkit
