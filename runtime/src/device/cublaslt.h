//===- cublaslt.h - Library GEMMs on CUDA through cuBLASLt ------*- C++ -*-===//
//
// cuBLASLt is loaded at run time (dlopen of libcublasLt.so.13, .so.12, .so,
// or the path in TANDEM_CUBLASLT; TANDEM_CUBLASLT=0 disables it), like the
// driver: the runtime never links it and builds without it. cuda.cpp owns
// one Context per device and a workspace per stream.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_DEVICE_CUBLASLT_H
#define TANDEM_RUNTIME_DEVICE_CUBLASLT_H

#include "tandem/runtime.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tandem {
namespace cublaslt {

struct Api;
struct Plan;

/// The process's cuBLASLt, loaded on first use (thread-safe); NULL when it
/// cannot be loaded, with the reason in *reason.
const Api *load(std::string *reason);

/// Workspace bytes each stream that runs GEMMs allocates once.
constexpr uint64_t kWorkspaceBytes = uint64_t(32) << 20;

/// A cuBLASLt handle with the plans (descriptors, layouts, chosen
/// algorithm) of the GEMMs it has run, for one CUDA context. The caller
/// makes that context current around every call. Thread-safe.
class Context {
public:
  /// cublasLtCreate; a failure is TANDEM_UNAVAILABLE.
  static tandem_status_t create(const Api &api, std::unique_ptr<Context> *out);
  ~Context();

  /// Enqueues GEMM `d` (checked) on CUDA stream `stream` with device
  /// pointers a, b, c and bias, and `workspace` of kWorkspaceBytes. The
  /// plan of `d` is built on first use (keyed by the descriptor's fields
  /// and the operands' alignment); later calls only set the bias pointer
  /// and enqueue the matmul, so they may be captured into CUDA Graphs.
  tandem_status_t gemm(const tandem_gemm_desc_t &d, uint64_t a, uint64_t b,
                       uint64_t c, uint64_t bias, uint64_t workspace,
                       void *stream);

private:
  Context(const Api &api, void *handle);
  /// The plan of `d` for operands of `alignment` bytes, built on first use;
  /// `mutex` is held.
  tandem_status_t getPlan(const tandem_gemm_desc_t &d, unsigned alignment,
                          Plan **out);

  const Api &api;
  void *handle;
  std::mutex mutex;
  /// The descriptor's fields, then the operands' alignment.
  using Key = std::array<int64_t, sizeof(tandem_gemm_desc_t) / 8 + 1>;
  std::map<Key, std::unique_ptr<Plan>> plans;
};

} // namespace cublaslt
} // namespace tandem

#endif // TANDEM_RUNTIME_DEVICE_CUBLASLT_H
