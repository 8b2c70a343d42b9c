//===- cuda_images.h - which device image a CUDA GPU loads ------*- C++ -*-===//
//
// The CUDA backend's choice among a device program's images, apart from
// the driver so that it is testable without one.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_RUNTIME_DEVICE_CUDA_IMAGES_H
#define TANDEM_RUNTIME_DEVICE_CUDA_IMAGES_H

#include "tandem/abi.h"

namespace tandem {
namespace device {

/// Picks the image for a CUDA device of `arch` ("sm_90"): a cubin for
/// exactly that arch, else a fatbin (the driver picks inside it; one naming
/// the arch first), else the PTX of the newest arch not above it
/// (JIT-compiled); NULL when none fits.
const tandem_device_image_t *
chooseCudaImage(const tandem_device_image_t *images, int32_t count,
                const char *arch);

} // namespace device
} // namespace tandem

#endif // TANDEM_RUNTIME_DEVICE_CUDA_IMAGES_H
