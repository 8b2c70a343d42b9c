//===- TandemInterfaces.td - op interfaces of tandem -------*- tablegen -*-===//
//
// The op interfaces of the tandem dialect: the cost interface that the
// placement cost model and the fusion priority read.
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_INTERFACES_TD
#define TANDEM_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Tandem_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::tandem";
  let description = [{
    The arithmetic a tandem op performs, independent of the device it runs
    on (`passes/Analysis/OpCost.cpp` adds the bytes it reads and writes and
    turns both into time against a device model). Every tandem op either
    implements it or carries the `ZeroCost` trait, which
    `test/unit/OpPropertiesTest.cpp` checks, so a new op cannot be costed by
    a silent default:

    * elementwise ops get it from `FlopsPerElement<N>` (N operations per
      result element; the elementwise base classes default to 1);
    * ops that only move or convert elements get it from `DataMovement`
      (no arithmetic: their cost is their traffic);
    * every other op defines `getFlops` itself
      (`dialects/Tandem/IR/TandemOpCosts.cpp`).
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the arithmetic operations the op performs on its static
        shapes: a multiply-add counts as two, a transcendental function as
        about a dozen.
      }],
      "double", "getFlops", (ins)>,
  ];
}

#endif // TANDEM_INTERFACES_TD
