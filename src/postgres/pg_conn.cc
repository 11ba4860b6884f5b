#include "postgres/pg_conn.h"

#include <endian.h>

#include <cstdlib>
#include <cstring>

#include "core/status_macros.h"

namespace ctxkit::storage {
namespace {

// Seconds a connection attempt may take unless the URL says otherwise.
constexpr char kDefaultConnectTimeout[] = "10";

constexpr Oid kInt8Oid = 20;
constexpr Oid kByteaOid = 17;
constexpr Oid kTextOid = 25;

// libpq prints notices (e.g. "relation already exists, skipping") on
// stderr by default; the engine's output is its Status values.
void IgnoreNotice(void* /*arg*/, const char* /*message*/) {}

// The SQLSTATE classes the engine maps to codes of its own.
bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

// ---- PgParams ----------------------------------------------------------

PgParams& PgParams::Add(Oid type, std::string_view bytes, bool null) {
  types_.push_back(type);
  values_.emplace_back(bytes);
  nulls_.push_back(null);
  lengths_.push_back(static_cast<int>(bytes.size()));
  formats_.push_back(1);
  return *this;
}

PgParams& PgParams::Int(int64_t v) {
  const uint64_t be = htobe64(static_cast<uint64_t>(v));
  char bytes[8];
  std::memcpy(bytes, &be, sizeof bytes);
  return Add(kInt8Oid, std::string_view(bytes, sizeof bytes), false);
}

PgParams& PgParams::Bytes(std::string_view v) {
  return Add(kByteaOid, v, false);
}

PgParams& PgParams::Text(std::string_view v) { return Add(kTextOid, v, false); }

PgParams& PgParams::Null() { return Add(0, {}, true); }

std::vector<const char*> PgParams::Values() const {
  std::vector<const char*> out;
  out.reserve(values_.size());
  for (size_t i = 0; i < values_.size(); ++i) {
    out.push_back(nulls_[i] ? nullptr : values_[i].data());
  }
  return out;
}

// ---- PgRows ------------------------------------------------------------

int64_t PgRows::Int(int row, int col) const {
  if (IsNull(row, col)) return 0;
  const char* p = Pq().getvalue(result_.get(), row, col);
  switch (Pq().getlength(result_.get(), row, col)) {
    case 1:
      return static_cast<unsigned char>(p[0]);
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return static_cast<int16_t>(be16toh(v));
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return static_cast<int32_t>(be32toh(v));
    }
    case 8: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<int64_t>(be64toh(v));
    }
    default:
      return 0;
  }
}

std::string PgRows::Bytes(int row, int col) const {
  if (IsNull(row, col)) return std::string();
  return std::string(Pq().getvalue(result_.get(), row, col),
                     Pq().getlength(result_.get(), row, col));
}

uint64_t PgRows::Affected() const {
  const char* n = Pq().cmdTuples(result_.get());
  return n[0] == '\0' ? 0 : std::strtoull(n, nullptr, 10);
}

// ---- PgConn ------------------------------------------------------------

std::vector<std::string> PgSecrets(const std::string& url) {
  std::vector<std::string> out;
  // As written in a URI: postgresql://user:PASSWORD@host/...
  const size_t scheme = url.find("://");
  if (scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t at = url.find('@', start);
    const size_t slash = url.find('/', start);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      const size_t colon = url.find(':', start);
      if (colon != std::string::npos && colon < at) {
        out.push_back(url.substr(colon + 1, at - colon - 1));
      }
    }
  }
  // Any password=VALUE in the raw string (a URI query parameter or a
  // key=value pair), also when the whole string does not parse.
  for (size_t at = url.find("password="); at != std::string::npos;
       at = url.find("password=", at + 1)) {
    const size_t start = at + 9;
    size_t end = url.find_first_of("& \t", start);
    if (end == std::string::npos) end = url.size();
    std::string value = url.substr(start, end - start);
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
      value = value.substr(1, value.size() - 2);
    }
    out.push_back(value);
  }
  // As libpq reads it (percent-decoded, or a key=value password=...).
  char* error = nullptr;
  PQconninfoOption* options = Pq().conninfoParse(url.c_str(), &error);
  if (error != nullptr) Pq().freemem(error);
  if (options != nullptr) {
    for (PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
      if (std::strcmp(o->keyword, "password") == 0 && o->val != nullptr) {
        out.emplace_back(o->val);
      }
    }
    Pq().conninfoFree(options);
  }
  std::erase_if(out, [](const std::string& s) { return s.empty(); });
  return out;
}

std::string PgConn::Scrub(std::string message) const {
  for (const std::string& secret : secrets_) {
    for (size_t at = message.find(secret); at != std::string::npos;
         at = message.find(secret, at)) {
      message.replace(at, secret.size(), "***");
    }
  }
  while (!message.empty() &&
         (message.back() == '\n' || message.back() == ' ')) {
    message.pop_back();
  }
  return message;
}

Result<std::unique_ptr<PgConn>> PgConn::Connect(const std::string& url,
                                                std::string setup) {
  CTXKIT_ASSIGN_OR_RETURN(const PqApi* loaded, LoadPq());
  const PqApi& pq = *loaded;
  std::vector<std::string> secrets = PgSecrets(url);
  // A malformed string is reported before any connection attempt (and the
  // parser's message can quote the string: it is scrubbed too).
  char* parse_error = nullptr;
  PQconninfoOption* parsed = pq.conninfoParse(url.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string message =
        parse_error != nullptr ? parse_error : "out of memory";
    if (parse_error != nullptr) Pq().freemem(parse_error);
    PgConn scrubber(nullptr, secrets, "");
    return Status::InvalidArgument("PostgreSQL store URL: " +
                                   scrubber.Scrub(message));
  }
  Pq().conninfoFree(parsed);
  // connect_timeout first: the URL's own, when it has one, overrides it
  // (libpq takes the last value, and expands `dbname` in place); so does
  // $PGCONNECT_TIMEOUT, as libpq's environment does elsewhere. Without one
  // libpq waits on an unreachable host as long as TCP does (minutes).
  // TCP keepalives (the URL may set its own too) let a connection whose
  // peer vanished fail within about 90 s instead of hanging, which matters
  // most to a LISTEN connection that only ever waits.
  const bool env_timeout = std::getenv("PGCONNECT_TIMEOUT") != nullptr;
  const char* const keywords[] = {
      "connect_timeout",  "keepalives_idle", "keepalives_interval",
      "keepalives_count", "dbname",          nullptr};
  const char* const values[] = {
      kDefaultConnectTimeout, "60", "10", "3", url.c_str(), nullptr};
  PGconn* conn = pq.connectdbParams(keywords + (env_timeout ? 1 : 0),
                                    values + (env_timeout ? 1 : 0),
                                    /*expand_dbname=*/1);
  if (conn == nullptr) return Status::Internal("libpq: out of memory");
  std::unique_ptr<PgConn> out(
      new PgConn(conn, std::move(secrets), std::move(setup)));
  if (Pq().status(conn) != CONNECTION_OK) {
    std::string message = out->Scrub(Pq().errorMessage(conn));
    const bool refused = message.find("authentication") != std::string::npos ||
                         message.find("password") != std::string::npos ||
                         message.find("permission denied") != std::string::npos;
    message = "cannot connect to the PostgreSQL store: " + message;
    return refused ? Status::PermissionDenied(message)
                   : Status::Unavailable(message);
  }
  CTXKIT_RETURN_IF_ERROR(out->StartSession());
  return out;
}

PgConn::~PgConn() {
  if (conn_ != nullptr) Pq().finish(conn_);
}

Status PgConn::StartSession() {
  Pq().setNoticeProcessor(conn_, &IgnoreNotice, nullptr);
  return setup_.empty() ? Status::Ok() : Run(setup_);
}

Status PgConn::EnsureConnected() {
  if (!Broken() && !needs_reset_) return Status::Ok();
  prepared_.clear();  // A new server session has none.
  Pq().reset(conn_);
  if (Broken()) {
    return Status::Unavailable("the PostgreSQL store is unreachable: " +
                               Scrub(Pq().errorMessage(conn_)));
  }
  // A session without its settings is not used: the next call resets
  // again.
  Status s = StartSession();
  needs_reset_ = !s.ok();
  return s;
}

Status PgConn::ErrorOf(const PGresult* result, std::string_view what) const {
  const char* state = result != nullptr
                          ? Pq().resultErrorField(result, PG_DIAG_SQLSTATE)
                          : nullptr;
  const std::string code = state != nullptr ? state : "";
  std::string message =
      Scrub(result != nullptr ? Pq().resultErrorMessage(result) : "");
  if (message.empty()) message = Scrub(Pq().errorMessage(conn_));
  message = "PostgreSQL store: " + std::string(what) + ": " + message;
  if (Broken() || code.empty() || StartsWith(code, "08") ||
      StartsWith(code, "57P")) {
    return Status::Unavailable(message);
  }
  // A lock wait that timed out, a serialization failure or a deadlock:
  // nothing was written, and trying again may succeed.
  if (code == "55P03" || code == "40001" || code == "40P01") {
    return Status::Unavailable(message);
  }
  // The engine's own (class CK, pg_schema.cc): a race lost; try again.
  if (StartsWith(code, "CK")) return Status::Unavailable(message);
  // Data exceptions (a text that is not valid UTF-8 or holds a NUL, a
  // number out of range): the input is at fault.
  if (StartsWith(code, "22")) return Status::InvalidArgument(message);
  if (StartsWith(code, "42501") || code == "25006") {
    return Status::PermissionDenied(message);
  }
  if (StartsWith(code, "53")) return Status::ResourceExhausted(message);
  return Status::Internal(message);
}

Result<PgRows> PgConn::Exec(const std::string& sql, const PgParams& params) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    std::string name = "s" + std::to_string(prepared_.size());
    PgRows prepared(Pq().prepare(conn_, name.c_str(), sql.c_str(),
                                 params.size(), params.types()));
    if (Pq().resultStatus(prepared.result()) != PGRES_COMMAND_OK) {
      return ErrorOf(prepared.result(), "prepare");
    }
    it = prepared_.emplace(sql, std::move(name)).first;
  }
  std::vector<const char*> values = params.Values();
  PgRows rows(Pq().execPrepared(conn_, it->second.c_str(), params.size(),
                                values.data(), params.lengths(),
                                params.formats(),
                                /*resultFormat=*/1));
  const ExecStatusType status = Pq().resultStatus(rows.result());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return ErrorOf(rows.result(), "query");
  }
  return rows;
}

Status PgConn::Run(const std::string& sql) {
  PgRows rows(Pq().exec(conn_, sql.c_str()));
  const ExecStatusType status = Pq().resultStatus(rows.result());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    return ErrorOf(rows.result(), "statement");
  }
  return Status::Ok();
}

Result<std::vector<std::string>> PgConn::TakeNotifications() {
  if (Pq().consumeInput(conn_) == 0) {
    needs_reset_ = true;
    return Status::Unavailable("PostgreSQL store: " +
                               Scrub(Pq().errorMessage(conn_)));
  }
  std::vector<std::string> out;
  while (PGnotify* n = Pq().notifies(conn_)) {
    out.emplace_back(n->relname);
    Pq().freemem(n);
  }
  return out;
}

}  // namespace ctxkit::storage
