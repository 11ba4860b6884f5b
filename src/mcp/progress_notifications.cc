#include "mcp/progress_notifications.h"

#include <cstdint>
#include <memory>

#include "core/progress_meter.h"
#include "face/environment.h"

namespace ctxkit::mcp {
namespace {

// The token, or null when the request carries none.
Json TokenOf(const Json& params) {
  if (!params.is_object()) return nullptr;
  auto meta = params.find("_meta");
  if (meta == params.end() || !meta->is_object()) return nullptr;
  auto token = meta->find("progressToken");
  return token == meta->end() ? Json() : *token;
}

}  // namespace

std::optional<RpcError> CheckProgressToken(const Json& params) {
  if (!params.is_object()) return std::nullopt;
  auto meta = params.find("_meta");
  if (meta == params.end() || meta->is_null()) return std::nullopt;
  if (!meta->is_object()) {
    return RpcError{kInvalidParams, "params._meta must be an object"};
  }
  auto token = meta->find("progressToken");
  if (token == meta->end() || token->is_string() ||
      token->is_number_integer()) {
    return std::nullopt;
  }
  return RpcError{kInvalidParams,
                  "params._meta.progressToken must be a string or an integer"};
}

ProgressOptions ProgressNotifications(ClientState& client, const Json& params) {
  ProgressOptions options;
  options.interval_ms = env::ProgressIntervalFromEnv();
  Json token = TokenOf(params);
  if (!token.is_string() && !token.is_number_integer()) return options;
  // Tasks of one call follow each other, each counting from 0: the
  // notifications add the finished tasks' counts so "progress" only grows.
  struct Sent {
    uint64_t before = 0;  // Counted by the call's finished tasks.
    uint64_t last = 0;    // The last "progress" sent.
  };
  auto sent = std::make_shared<Sent>();
  options.report = [&client, token = std::move(token),
                    sent](const Progress& p) {
    const uint64_t progress = sent->before + p.done;
    if (p.finished) sent->before = progress;
    if (progress <= sent->last) return;
    sent->last = progress;
    Json n = {{"progressToken", token},
              {"progress", progress},
              {"message", core::ProgressText(p)}};
    if (p.total >= p.done && p.total > 0) n["total"] = sent->before + p.total;
    if (p.finished) n["total"] = progress;
    client.Notify(NotificationMessage("notifications/progress", std::move(n)));
  };
  return options;
}

}  // namespace ctxkit::mcp
