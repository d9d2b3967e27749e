// The few libuv calls the event pump makes, declared here: Node exports libuv's symbols to
// addons, but the Node-API headers the addon builds against (node-api-headers) do not ship uv.h.
// libuv keeps its ABI within major version 1, which every Node since 0.12 carries.
#pragma once

#include <cstddef>

extern "C" {
struct uv_loop_s;
struct uv_handle_s;
struct uv_async_s;
using uv_async_cb = void (*)(uv_async_s*);
using uv_close_cb = void (*)(uv_handle_s*);
int uv_async_init(uv_loop_s* loop, uv_async_s* async, uv_async_cb cb);
int uv_async_send(uv_async_s* async);
void uv_close(uv_handle_s* handle, uv_close_cb cb);
void uv_ref(uv_handle_s* handle);
void uv_unref(uv_handle_s* handle);
size_t uv_handle_size(int type);
}

namespace sawt::uv {
constexpr int kAsyncHandle = 1;  // UV_ASYNC in uv_handle_type
// Every handle starts with its `void* data` (libuv's public UV_HANDLE_FIELDS).
inline void*& Data(void* handle) { return *static_cast<void**>(handle); }
}  // namespace sawt::uv
