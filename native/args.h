// Readers of JavaScript arguments (main thread only): each checks a value's type and range, or throws a
// SAWT_ENGINE_INVALID_ARGUMENT TypeError saying what was expected, for which name, and what was received.
// The *Field readers take an option of an object: undefined gives the fallback.
#pragma once

#include <napi.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "errors.h"

namespace sawt {
namespace args {

// What a value that failed a check was, for "but received …": a number,
// boolean, undefined or null as JS prints it, else its kind ("a string",
// "an array", "a Float32Array of 12", "an object").
std::string Received(const Napi::Value& v);

// A number as messages write it: integers without decimals.
std::string NumberText(double x);

// An object (not an array, typed array or function) for `name`.
Napi::Object Object(Napi::Env env, const Napi::Value& v, const std::string& name);

// A finite number in [lo, hi].
double Number(Napi::Env env, const Napi::Value& v, const std::string& name, double lo, double hi);
double NumberField(Napi::Env env, const Napi::Object& o, const char* name, double lo, double hi, double fallback);

// An integer in [lo, hi].
int64_t Integer(Napi::Env env, const Napi::Value& v, const std::string& name, int64_t lo, int64_t hi);
int64_t IntegerField(Napi::Env env, const Napi::Object& o, const char* name, int64_t lo, int64_t hi, int64_t fallback);

// An integer that fits an int32 (the value's range is checked in TypeScript).
inline int Int32(Napi::Env env, const Napi::Value& v, const std::string& name) {
  return static_cast<int>(Integer(env, v, name, INT32_MIN, INT32_MAX));
}

// A string (non-empty when `nonEmpty`).
std::string String(Napi::Env env, const Napi::Value& v, const std::string& name, bool nonEmpty = false);

// A boolean; undefined gives the fallback.
bool BooleanField(Napi::Env env, const Napi::Object& o, const char* name, bool fallback);

// One of `choices` (a string); undefined gives the fallback.
std::string OneOfField(Napi::Env env, const Napi::Object& o, const char* name, std::initializer_list<const char*> choices,
                       const std::string& fallback);

// An array of numbers, each in [lo, hi], at most maxLength of them; undefined
// gives an empty vector.
std::vector<double> NumberArray(Napi::Env env, const Napi::Value& v, const std::string& name, size_t maxLength, double lo, double hi);

// A typed array of type `type` (its JS name in `typeName`, e.g. "Int16Array").
Napi::TypedArray TypedArray(Napi::Env env, const Napi::Value& v, const std::string& name, napi_typedarray_type type,
                            const char* typeName);

// An Int16Array.
inline Napi::Int16Array Int16Array(Napi::Env env, const Napi::Value& v, const std::string& name) {
  return TypedArray(env, v, name, napi_int16_array, "Int16Array").As<Napi::Int16Array>();
}

// A Float32Array.
inline Napi::Float32Array Float32Array(Napi::Env env, const Napi::Value& v, const std::string& name) {
  return TypedArray(env, v, name, napi_float32_array, "Float32Array").As<Napi::Float32Array>();
}

// A function.
Napi::Function Function(Napi::Env env, const Napi::Value& v, const std::string& name);

// ONNX Runtime's execution provider option ("cpu" or "cuda"): true for cuda.
bool CudaProvider(Napi::Env env, const Napi::Object& o);

}  // namespace args
}  // namespace sawt
