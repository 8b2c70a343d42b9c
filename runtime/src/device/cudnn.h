//===- cudnn.h - Library convolutions on CUDA through cuDNN ----*- C++ -*-===//
//
// cuDNN is loaded at run time (dlopen of the path in TANDEM_CUDNN_LIBRARY,
// else libcudnn.so.9 on the library path, else next to a PyTorch or JAX pip
// install's nvidia/cudnn/lib; TANDEM_CUDNN_LIBRARY=0 disables it), like the
// driver and cuBLASLt: the runtime never links it and builds without it.
// cuda.cpp owns one Context per device and a workspace per stream.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_DEVICE_CUDNN_H
#define TANDEM_RUNTIME_DEVICE_CUDNN_H

#include "tandem/runtime.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace tandem {
namespace cudnn {

struct Api;
struct Plan;

/// The process's cuDNN, loaded on first use (thread-safe); NULL when it
/// cannot be loaded, with the reason in *reason.
const Api *load(std::string *reason);

/// The most workspace a convolution may use: the algorithm of each shape is
/// chosen among those that fit. A stream allocates once what the largest of
/// its model's convolutions needs (at model creation), or this much for a
/// convolution it was not prepared for.
constexpr uint64_t kWorkspaceBytes = uint64_t(64) << 20;

/// A cuDNN handle with the plans (descriptors, chosen algorithm) of the
/// convolutions it has run, for one CUDA context. The caller makes that
/// context current around every call. Thread-safe.
class Context {
public:
  /// cudnnCreate; a failure is TANDEM_UNAVAILABLE.
  static tandem_status_t create(const Api &api, std::unique_ptr<Context> *out);
  ~Context();

  /// Builds the plan of convolution `d` (checked) if it has none yet and
  /// sets *workspaceBytes to what its algorithm needs.
  tandem_status_t prepare(const tandem_conv_desc_t &d,
                          uint64_t *workspaceBytes);

  /// Enqueues convolution `d` (checked) on CUDA stream `stream` with device
  /// pointers x, w, y, bias and z, and `workspace` of at least the bytes
  /// prepare() gave (kWorkspaceBytes covers every plan). The
  /// plan of `d` (descriptors, the algorithm cuDNN's heuristics rank first
  /// among those fitting the workspace) is built on the first call of its
  /// shape; later calls only set the stream and enqueue, so they may be
  /// captured into CUDA Graphs. With a bias, the bias, the residual and a
  /// ReLU run in one cudnnConvolutionBiasActivationForward; without one,
  /// cudnnConvolutionForward then cudnnAddTensor for the residual; any
  /// other activation is one cudnnActivationForward in place.
  tandem_status_t conv(const tandem_conv_desc_t &d, uint64_t x, uint64_t w,
                       uint64_t y, uint64_t bias, uint64_t z,
                       uint64_t workspace, void *stream);

  /// The algorithm chosen for `d` (a cudnnConvolutionFwdAlgo_t), -1 before
  /// its first call: tests check the choice.
  int algorithmOf(const tandem_conv_desc_t &d);

private:
  Context(const Api &api, void *handle);
  /// The plan of `d`, built on first use; `mutex` is held.
  tandem_status_t getPlan(const tandem_conv_desc_t &d, Plan **out);

  const Api &api;
  void *handle;
  std::mutex mutex;
  using Key = std::array<int64_t, sizeof(tandem_conv_desc_t) / 8>;
  std::map<Key, std::unique_ptr<Plan>> plans;
};

} // namespace cudnn
} // namespace tandem

#endif // TANDEM_RUNTIME_DEVICE_CUDNN_H
