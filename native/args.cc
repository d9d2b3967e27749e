#include "args.h"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

namespace sawt {
namespace args {

std::string Received(const Napi::Value& v) {
  if (v.IsUndefined() || v.IsNull() || v.IsNumber() || v.IsBoolean()) return v.ToString().Utf8Value();
  if (v.IsString()) return "a string";
  if (v.IsArray()) return "an array";
  if (v.IsTypedArray()) {
    const Napi::TypedArray a = v.As<Napi::TypedArray>();
    // By napi_typedarray_type; the types no binding reads are "typed array".
    static const char* const kTypes[] = {"Int8Array", "Uint8Array", "typed array", "Int16Array", "typed array", "Int32Array",
                                         "typed array", "Float32Array", "Float64Array", "BigInt64Array"};
    const size_t t = a.TypedArrayType();
    return std::string("a ") + (t < std::size(kTypes) ? kTypes[t] : "typed array") + " of " + std::to_string(a.ElementLength());
  }
  if (v.IsFunction()) return "a function";
  return "an object";
}

std::string NumberText(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return std::to_string(static_cast<int64_t>(x));
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

Napi::Object Object(Napi::Env env, const Napi::Value& v, const std::string& name) {
  if (!v.IsObject() || v.IsArray() || v.IsTypedArray() || v.IsFunction()) {
    ThrowInvalidArgument(env, "Expected an object for " + name + " but received " + Received(v));
  }
  return v.As<Napi::Object>();
}

double Number(Napi::Env env, const Napi::Value& v, const std::string& name, double lo, double hi) {
  const double x = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(x >= lo && x <= hi)) {
    ThrowInvalidArgument(env, "Expected a number between " + NumberText(lo) + " and " + NumberText(hi) + " for " + name +
                                  " but received " + Received(v));
  }
  return x;
}

double NumberField(Napi::Env env, const Napi::Object& o, const char* name, double lo, double hi, double fallback) {
  const Napi::Value v = o.Get(name);
  return v.IsUndefined() ? fallback : Number(env, v, name, lo, hi);
}

int64_t Integer(Napi::Env env, const Napi::Value& v, const std::string& name, int64_t lo, int64_t hi) {
  const double x = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : NAN;
  if (!(x >= static_cast<double>(lo) && x <= static_cast<double>(hi) && x == std::floor(x))) {
    ThrowInvalidArgument(env, "Expected an integer between " + std::to_string(lo) + " and " + std::to_string(hi) + " for " + name +
                                  " but received " + Received(v));
  }
  return static_cast<int64_t>(x);
}

int64_t IntegerField(Napi::Env env, const Napi::Object& o, const char* name, int64_t lo, int64_t hi, int64_t fallback) {
  const Napi::Value v = o.Get(name);
  return v.IsUndefined() ? fallback : Integer(env, v, name, lo, hi);
}

std::string String(Napi::Env env, const Napi::Value& v, const std::string& name, bool nonEmpty) {
  if (!v.IsString() || (nonEmpty && v.As<Napi::String>().Utf8Value().empty())) {
    ThrowInvalidArgument(env, std::string(nonEmpty ? "Expected a non-empty string for " : "Expected a string for ") + name +
                                  " but received " + (v.IsString() ? "''" : Received(v)));
  }
  return v.As<Napi::String>().Utf8Value();
}

bool BooleanField(Napi::Env env, const Napi::Object& o, const char* name, bool fallback) {
  const Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return fallback;
  if (!v.IsBoolean()) ThrowInvalidArgument(env, std::string("Expected a boolean for ") + name + " but received " + Received(v));
  return v.As<Napi::Boolean>().Value();
}

std::string OneOfField(Napi::Env env, const Napi::Object& o, const char* name, std::initializer_list<const char*> choices,
                       const std::string& fallback) {
  const Napi::Value v = o.Get(name);
  if (v.IsUndefined()) return fallback;
  const std::string s = v.IsString() ? v.As<Napi::String>().Utf8Value() : "";
  std::string list;
  for (const char* c : choices) {
    if (v.IsString() && s == c) return s;
    list += (list.empty() ? "" : ", ") + std::string(c);
  }
  ThrowInvalidArgument(env, "Expected one of " + list + " for " + name + " but received " + (v.IsString() ? "'" + s + "'" : Received(v)));
}

std::vector<double> NumberArray(Napi::Env env, const Napi::Value& v, const std::string& name, size_t maxLength, double lo, double hi) {
  std::vector<double> out;
  if (v.IsUndefined()) return out;
  if (!v.IsArray() || v.As<Napi::Array>().Length() > maxLength) {
    ThrowInvalidArgument(env, "Expected an array of at most " + std::to_string(maxLength) + " numbers for " + name + " but received " +
                                  (v.IsArray() ? "an array of " + std::to_string(v.As<Napi::Array>().Length()) : Received(v)));
  }
  const Napi::Array a = v.As<Napi::Array>();
  out.reserve(a.Length());
  for (uint32_t i = 0; i < a.Length(); ++i) out.push_back(Number(env, a.Get(i), name + "[" + std::to_string(i) + "]", lo, hi));
  return out;
}

Napi::TypedArray TypedArray(Napi::Env env, const Napi::Value& v, const std::string& name, napi_typedarray_type type,
                            const char* typeName) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != type) {
    const bool vowel = std::string("AEIOU").find(typeName[0]) != std::string::npos;
    ThrowInvalidArgument(env, std::string(vowel ? "Expected an " : "Expected a ") + typeName + " for " + name + " but received " + Received(v));
  }
  return v.As<Napi::TypedArray>();
}

Napi::Function Function(Napi::Env env, const Napi::Value& v, const std::string& name) {
  if (!v.IsFunction()) ThrowInvalidArgument(env, "Expected a function for " + name + " but received " + Received(v));
  return v.As<Napi::Function>();
}

bool CudaProvider(Napi::Env env, const Napi::Object& o) { return OneOfField(env, o, "executionProvider", {"cpu", "cuda"}, "cpu") == "cuda"; }

}  // namespace args
}  // namespace sawt
