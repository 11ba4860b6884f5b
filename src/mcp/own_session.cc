#include "mcp/own_session.h"

#include <string>

namespace ctxkit::mcp {

Result<std::unique_ptr<Session>> OwnSession(ClientState& c) {
  Result<std::unique_ptr<Session>> s =
      Session::Open(*c.store, c.binding.session);
  if (s.ok() || !s.status().IsNotFound()) return s;
  s = Session::Create(*c.store, c.binding.session, SessionPolicy{});
  if (s.ok() || s.status().code() != StatusCode::kAlreadyExists) return s;
  return Session::Open(*c.store, c.binding.session);  // Lost a race.
}

Status CheckOwnSession(const ClientState& c, std::string_view session) {
  if (session.empty() || session == c.binding.session) return Status::Ok();
  return Status::PermissionDenied(
      "this connection is bound to session '" + c.binding.session +
      "' and may not read session '" + std::string(session) +
      "' (start the server with --session to bind another)");
}

}  // namespace ctxkit::mcp
