#include "face/tool_schema.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace ctxkit::face {

namespace {

bool IsInteger(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d;
}

bool HasType(const Json& v, const std::string& type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return IsInteger(v);
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "null") return v.is_null();
  return true;  // Unknown type names are not ours to reject.
}

std::string Bound(const Json& b) {
  return IsInteger(b) ? std::to_string(b.get<int64_t>()) : b.dump();
}

// UTF-8 characters, as JSON Schema's minLength/maxLength count them
// (code points; close enough to UTF-16 units for the limits used here).
size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Removes, in `value` as `schema` describes it, the null members of
// optional properties whose schema does not admit null, recursing into
// declared properties and array items.
void DropNullOptionals(const Json& schema, Json* value) {
  if (!schema.is_object()) return;
  if (value->is_array()) {
    if (auto items = schema.find("items"); items != schema.end()) {
      for (Json& item : *value) DropNullOptionals(*items, &item);
    }
    return;
  }
  auto props = schema.find("properties");
  if (!value->is_object() || props == schema.end() || !props->is_object()) {
    return;
  }
  const Json required = schema.value("required", Json::array());
  for (auto p = props->begin(); p != props->end(); ++p) {
    auto member = value->find(p.key());
    if (member == value->end()) continue;
    bool optional =
        std::find(required.begin(), required.end(), p.key()) == required.end();
    if (member->is_null() && optional && !CheckSchema(*p, *member).ok()) {
      value->erase(member);
    } else {
      DropNullOptionals(*p, &*member);
    }
  }
}

}  // namespace

Json ObjectSchema(Json properties,
                  std::initializer_list<const char*> required) {
  Json schema = {{"type", "object"},
                 {"properties", std::move(properties)},
                 {"additionalProperties", false}};
  if (required.size() > 0) {
    Json req = Json::array();
    for (const char* r : required) req.push_back(r);
    schema["required"] = std::move(req);
  }
  return schema;
}

Json StringProp(std::string_view description, uint64_t min_length,
                uint64_t max_length) {
  Json p = {{"type", "string"}, {"description", std::string(description)}};
  if (min_length > 0) p["minLength"] = min_length;
  if (max_length > 0) p["maxLength"] = max_length;
  return p;
}

Json IntProp(std::string_view description, int64_t minimum, int64_t maximum) {
  return {{"type", "integer"},
          {"description", std::string(description)},
          {"minimum", minimum},
          {"maximum", maximum}};
}

Json BoolProp(std::string_view description) {
  return {{"type", "boolean"}, {"description", std::string(description)}};
}

Json EnumProp(std::string_view description,
              std::initializer_list<const char*> values) {
  Json e = Json::array();
  for (const char* v : values) e.push_back(v);
  return {{"type", "string"},
          {"description", std::string(description)},
          {"enum", std::move(e)}};
}

Json StringListProp(std::string_view description, uint64_t max_items) {
  return {{"type", "array"},
          {"description", std::string(description)},
          {"items", {{"type", "string"}}},
          {"maxItems", max_items}};
}

Status CheckSchema(const Json& schema, const Json& value,
                   const std::string& path) {
  if (!schema.is_object()) return Status::Ok();
  if (auto t = schema.find("type"); t != schema.end()) {
    bool ok = false;
    std::string names;
    if (t->is_string()) {
      ok = HasType(value, t->get<std::string>());
      names = t->get<std::string>();
    } else if (t->is_array()) {
      for (const Json& one : *t) {
        if (!one.is_string()) continue;
        ok = ok || HasType(value, one.get<std::string>());
        names += (names.empty() ? "" : " or ") + one.get<std::string>();
      }
    } else {
      ok = true;
    }
    if (!ok) {
      return Status::InvalidArgument(
          path + ": must be " + (names == "integer" ? "an " : "a ") + names);
    }
  }
  if (auto e = schema.find("enum"); e != schema.end() && e->is_array()) {
    bool found = false;
    for (const Json& one : *e) found = found || one == value;
    if (!found) {
      return Status::InvalidArgument(path + ": must be one of " + e->dump());
    }
  }
  if (value.is_number()) {
    if (auto m = schema.find("minimum");
        m != schema.end() && m->is_number() &&
        value.get<double>() < m->get<double>()) {
      return Status::InvalidArgument(path + ": must be at least " + Bound(*m));
    }
    if (auto m = schema.find("maximum");
        m != schema.end() && m->is_number() &&
        value.get<double>() > m->get<double>()) {
      return Status::InvalidArgument(path + ": must be at most " + Bound(*m));
    }
  }
  if (value.is_string()) {
    size_t n = CodePoints(value.get_ref<const std::string&>());
    if (auto m = schema.find("minLength");
        m != schema.end() && IsInteger(*m) && n < m->get<uint64_t>()) {
      return Status::InvalidArgument(path + ": must be at least " + Bound(*m) +
                                     " characters long");
    }
    if (auto m = schema.find("maxLength");
        m != schema.end() && IsInteger(*m) && n > m->get<uint64_t>()) {
      return Status::InvalidArgument(path + ": must be at most " + Bound(*m) +
                                     " characters long");
    }
  }
  if (value.is_array()) {
    if (auto m = schema.find("minItems"); m != schema.end() && IsInteger(*m) &&
                                          value.size() < m->get<uint64_t>()) {
      return Status::InvalidArgument(path + ": needs at least " + Bound(*m) +
                                     " items");
    }
    if (auto m = schema.find("maxItems"); m != schema.end() && IsInteger(*m) &&
                                          value.size() > m->get<uint64_t>()) {
      return Status::InvalidArgument(path + ": takes at most " + Bound(*m) +
                                     " items");
    }
    if (auto items = schema.find("items"); items != schema.end()) {
      for (size_t i = 0; i < value.size(); ++i) {
        Status s =
            CheckSchema(*items, value[i], path + "[" + std::to_string(i) + "]");
        if (!s.ok()) return s;
      }
    }
  }
  if (value.is_object()) {
    const Json* props = nullptr;
    if (auto p = schema.find("properties");
        p != schema.end() && p->is_object()) {
      props = &*p;
    }
    if (auto r = schema.find("required"); r != schema.end() && r->is_array()) {
      for (const Json& name : *r) {
        if (name.is_string() && !value.contains(name.get<std::string>())) {
          return Status::InvalidArgument(path + "." + name.get<std::string>() +
                                         ": is required");
        }
      }
    }
    auto ap = schema.find("additionalProperties");
    bool closed = ap != schema.end() && ap->is_boolean() && !ap->get<bool>();
    for (auto it = value.begin(); it != value.end(); ++it) {
      const Json* sub = nullptr;
      if (props != nullptr) {
        if (auto f = props->find(it.key()); f != props->end()) sub = &*f;
      }
      if (sub == nullptr) {
        if (closed) {
          std::string known;
          if (props != nullptr) {
            for (auto k = props->begin(); k != props->end(); ++k) {
              known += (known.empty() ? "" : ", ") + k.key();
            }
          }
          return Status::InvalidArgument(
              path + "." + it.key() + ": unknown property (expected: " +
              (known.empty() ? "none" : known) + ")");
        }
        continue;
      }
      Status s = CheckSchema(*sub, it.value(), path + "." + it.key());
      if (!s.ok()) return s;
    }
  }
  return Status::Ok();
}

Status CheckArguments(const Json& schema, Json* args) {
  DropNullOptionals(schema, args);
  return CheckSchema(schema, *args);
}

}  // namespace ctxkit::face
