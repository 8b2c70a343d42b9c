//===- library_loader.h - dlopen of an optional vendor library -*- C++ -*-===//
//
// The CUDA libraries the runtime uses when present (cuBLASLt, cuDNN) are
// found the same way: an environment variable that disables them ("0") or
// names the file to load, else a list of sonames tried in order, else a
// fallback path found on disk. Failures name every file tried and the last
// dlerror.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_DEVICE_LIBRARY_LOADER_H
#define TANDEM_RUNTIME_DEVICE_LIBRARY_LOADER_H

#include <functional>
#include <initializer_list>
#include <string>

namespace tandem {

/// A dlopen'ed library (never dlclose'd, like the driver), or why not.
struct OpenedLibrary {
  void *handle = nullptr;
  std::string error;
};

/// Opens `title`'s library (RTLD_NOW | RTLD_LOCAL): `envVar` = "0" refuses
/// ("disabled by ENV=0"), any other non-empty value is the only file tried;
/// otherwise each of `names` in order, then `fallback()` if given and not
/// empty. On failure, error is "cannot load TITLE (tried, ...): dlerror".
OpenedLibrary openLibrary(const char *title, const char *envVar,
                          std::initializer_list<const char *> names,
                          const std::function<std::string()> &fallback = {});

/// dlsym of `symbol` in `handle` into `out`; false (and `error` set to
/// "TITLE lacks SYMBOL") when the library does not have it.
template <typename Fn>
bool loadSymbol(void *handle, const char *title, const char *symbol, Fn &out,
                std::string &error);

} // namespace tandem

#include <dlfcn.h>

template <typename Fn>
bool tandem::loadSymbol(void *handle, const char *title, const char *symbol,
                        Fn &out, std::string &error) {
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (!out)
    error = std::string(title) + " lacks " + symbol;
  return out != nullptr;
}

#endif // TANDEM_RUNTIME_DEVICE_LIBRARY_LOADER_H
