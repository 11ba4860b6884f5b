#include "node_binding.h"

#include <array>
#include <string>

namespace ctxkit::node {

namespace {

// Per-environment data: the CtxkitError constructor and the native
// classes (by NativeClass).
struct AddonData {
  Napi::FunctionReference error_class;
  std::array<Napi::FunctionReference, 5> classes;
};

AddonData* Data(Napi::Env env) {
  AddonData* data = env.GetInstanceData<AddonData>();
  if (data == nullptr) {
    data = new AddonData();
    env.SetInstanceData(data);  // Deleted with the environment.
  }
  return data;
}

[[noreturn]] void ThrowType(Napi::Env env, const std::string& message) {
  throw Napi::TypeError::New(env, message);
}

bool Absent(const Napi::Value& v) { return v.IsUndefined() || v.IsNull(); }

}  // namespace

std::string TypeName(const Napi::Value& v) {
  if (v.IsUndefined()) return "undefined";
  if (v.IsNull()) return "null";
  if (v.IsString()) return "string";
  if (v.IsNumber()) return "number";
  if (v.IsBoolean()) return "boolean";
  if (v.IsArray()) return "array";
  if (v.IsBuffer() || v.IsTypedArray()) return "buffer";
  if (v.IsFunction()) return "function";
  return "object";
}

void SetErrorClass(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsFunction()) {
    ThrowType(info.Env(), "setErrorClass(cls): cls must be a function");
  }
  Data(info.Env())->error_class =
      Napi::Persistent(info[0].As<Napi::Function>());
}

void SetNativeClass(Napi::Env env, NativeClass which, Napi::Function cls) {
  Data(env)->classes.at(static_cast<size_t>(which)) = Napi::Persistent(cls);
}

Napi::Function NativeClassOf(Napi::Env env, NativeClass which) {
  return Data(env)->classes.at(static_cast<size_t>(which)).Value();
}

Napi::Value StatusError(Napi::Env env, const Status& status) {
  const std::string code(StatusCodeName(status.code()));
  Napi::Object error;
  AddonData* data = Data(env);
  if (!data->error_class.IsEmpty()) {
    error = data->error_class.New({Napi::String::New(env, status.message()),
                                   Napi::String::New(env, code)});
  } else {
    error = Napi::Error::New(env, status.message()).Value();
    error.Set("code", code);
  }
  return error;
}

void ThrowStatus(Napi::Env, const Status& status) {
  throw StatusException{status};
}

std::string StringArg(const Napi::CallbackInfo& info, size_t i,
                      const char* name) {
  if (i >= info.Length() || !info[i].IsString()) {
    ThrowType(
        info.Env(),
        std::string(name) + " must be a string, not " +
            TypeName(i < info.Length() ? info[i] : info.Env().Undefined()));
  }
  return info[i].As<Napi::String>().Utf8Value();
}

uint64_t UintArg(const Napi::CallbackInfo& info, size_t i, const char* name) {
  const double d = i < info.Length() && info[i].IsNumber()
                       ? info[i].As<Napi::Number>().DoubleValue()
                       : -1;
  if (d < 0 || d > 9007199254740991.0 ||
      d != static_cast<double>(static_cast<uint64_t>(d))) {
    ThrowType(info.Env(),
              std::string(name) + " must be a non-negative integer");
  }
  return static_cast<uint64_t>(d);
}

std::string BytesOf(const Napi::Value& v, const std::string& name) {
  if (v.IsString()) return v.As<Napi::String>().Utf8Value();
  if (v.IsTypedArray()) {
    auto array = v.As<Napi::TypedArray>();
    if (array.TypedArrayType() == napi_uint8_array) {
      auto bytes = array.As<Napi::Uint8Array>();
      return std::string(reinterpret_cast<const char*>(bytes.Data()),
                         bytes.ByteLength());
    }
  }
  ThrowType(v.Env(), name + " must be a string, Buffer or Uint8Array, not " +
                         TypeName(v));
}

std::string BytesArg(const Napi::CallbackInfo& info, size_t i,
                     const char* name) {
  return BytesOf(i < info.Length() ? info[i] : info.Env().Undefined(), name);
}

std::string JsonArg(const Napi::CallbackInfo& info, size_t i,
                    const char* name) {
  if (i < info.Length() && info[i].IsString()) {
    return info[i].As<Napi::String>().Utf8Value();
  }
  if (i >= info.Length() || Absent(info[i])) {
    ThrowType(info.Env(), std::string(name) + " must be JSON text or a value");
  }
  Napi::Env env = info.Env();
  Napi::Object json = env.Global().Get("JSON").As<Napi::Object>();
  Napi::Value text =
      json.Get("stringify").As<Napi::Function>().Call(json, {info[i]});
  if (!text.IsString()) {
    ThrowType(env, std::string(name) + " cannot be written as JSON");
  }
  return text.As<Napi::String>().Utf8Value();
}

Napi::Object OptionsArg(const Napi::CallbackInfo& info, size_t i) {
  if (i >= info.Length() || info[i].IsUndefined()) {
    return Napi::Object::New(info.Env());
  }
  if (!info[i].IsObject() || info[i].IsArray() || info[i].IsFunction()) {
    ThrowType(info.Env(),
              "options must be an object, not " + TypeName(info[i]));
  }
  return info[i].As<Napi::Object>();
}

std::optional<std::string> OptString(const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return std::nullopt;
  if (!v.IsString()) {
    ThrowType(o.Env(), std::string("options.") + name +
                           " must be a string, not " + TypeName(v));
  }
  return v.As<Napi::String>().Utf8Value();
}

std::optional<int64_t> OptInt(const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return std::nullopt;
  if (!v.IsNumber()) {
    ThrowType(o.Env(), std::string("options.") + name +
                           " must be an integer, not " + TypeName(v));
  }
  const double d = v.As<Napi::Number>().DoubleValue();
  if (d != static_cast<double>(static_cast<int64_t>(d)) ||
      d > 9007199254740991.0 || d < -9007199254740991.0) {
    ThrowType(o.Env(),
              std::string("options.") + name + " must be a safe integer");
  }
  return static_cast<int64_t>(d);
}

std::optional<uint64_t> OptUint(const Napi::Object& o, const char* name) {
  std::optional<int64_t> v = OptInt(o, name);
  if (!v) return std::nullopt;
  if (*v < 0) {
    ThrowType(o.Env(), std::string("options.") + name + " must be >= 0");
  }
  return static_cast<uint64_t>(*v);
}

std::optional<bool> OptBool(const Napi::Object& o, const char* name) {
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return std::nullopt;
  if (!v.IsBoolean()) {
    ThrowType(o.Env(), std::string("options.") + name +
                           " must be a boolean, not " + TypeName(v));
  }
  return v.As<Napi::Boolean>().Value();
}

std::vector<std::string> OptStrings(const Napi::Object& o, const char* name) {
  std::vector<std::string> out;
  Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return out;
  if (!v.IsArray()) {
    throw Napi::TypeError::New(o.Env(), std::string("options.") + name +
                                            " must be an array of strings");
  }
  Napi::Array a = v.As<Napi::Array>();
  for (uint32_t i = 0; i < a.Length(); ++i) {
    Napi::Value e = a.Get(i);
    if (!e.IsString()) {
      throw Napi::TypeError::New(o.Env(), std::string("options.") + name +
                                              " must be an array of strings");
    }
    out.push_back(e.As<Napi::String>().Utf8Value());
  }
  return out;
}

Napi::Value ToJs(Napi::Env env, const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null:
      return env.Null();
    case nlohmann::json::value_t::boolean:
      return Napi::Boolean::New(env, value.get<bool>());
    case nlohmann::json::value_t::number_integer:
      return Napi::Number::New(env, static_cast<double>(value.get<int64_t>()));
    case nlohmann::json::value_t::number_unsigned:
      return Napi::Number::New(env, static_cast<double>(value.get<uint64_t>()));
    case nlohmann::json::value_t::number_float:
      return Napi::Number::New(env, value.get<double>());
    case nlohmann::json::value_t::string:
      return Napi::String::New(env, value.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      Napi::Array out = Napi::Array::New(env, value.size());
      for (size_t i = 0; i < value.size(); ++i) {
        out.Set(static_cast<uint32_t>(i), ToJs(env, value[i]));
      }
      return out;
    }
    case nlohmann::json::value_t::object: {
      Napi::Object out = Napi::Object::New(env);
      for (auto it = value.begin(); it != value.end(); ++it) {
        out.Set(it.key(), ToJs(env, it.value()));
      }
      return out;
    }
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded:
      break;
  }
  return env.Undefined();
}

Napi::Value ToBuffer(Napi::Env env, const std::string& bytes) {
  return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
}

}  // namespace ctxkit::node
