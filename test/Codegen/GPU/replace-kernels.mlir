// RUN: tandem-opt -tandem-map-kernels-to-gpu="emulate-on-host=1 replace-kernels=1" %s | FileCheck %s

// With replace-kernels, the kernel function itself runs the mapped body
// over every block and thread (what tandemc --gpu-twins=mapped compiles into
// the CPU twins): the linalg op is gone, no @<kernel>_emulated is left, and
// the function keeps its name, type and tandem.kernel marker.
// CHECK-LABEL: func.func private @rowsum(%{{.+}}: memref<300x7xf32>, %{{.+}}: memref<300xf32>) attributes {tandem.kernel}
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[B:.+]] = %{{.+}} to %{{.+}} step
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step
// CHECK: arith.cmpi ult
// CHECK: return
// CHECK-NOT: @rowsum_emulated
func.func private @rowsum(%a: memref<300x7xf32>, %s: memref<300xf32>) attributes {tandem.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<300x7xf32>) outs(%s : memref<300xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}
