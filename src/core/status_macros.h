// Internal helpers for propagating Status and Result (not part of the API).

#ifndef CTXKIT_CORE_STATUS_MACROS_H_
#define CTXKIT_CORE_STATUS_MACROS_H_

#include "ctxkit/status.h"

#define CTXKIT_CONCAT_INNER_(a, b) a##b
#define CTXKIT_CONCAT_(a, b) CTXKIT_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define CTXKIT_RETURN_IF_ERROR(expr)   \
  do {                                 \
    ::ctxkit::Status _status = (expr); \
    if (!_status.ok()) return _status; \
  } while (0)

// `lhs = value of expr` (a Result<T>), or returns its Status.
#define CTXKIT_ASSIGN_OR_RETURN(lhs, expr) \
  CTXKIT_ASSIGN_OR_RETURN_IMPL_(CTXKIT_CONCAT_(_result_, __LINE__), lhs, expr)
#define CTXKIT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#endif  // CTXKIT_CORE_STATUS_MACROS_H_
