//===- TileAttrs.h - tile dialect attributes --------------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the enums and layout-encoding attributes of the `tile`
// dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEATTRS_H
#define TILEC_DIALECT_TILE_IR_TILEATTRS_H

#include "tilec/Dialect/Tile/IR/LinearLayout.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "mlir/IR/DialectImplementation.h"

namespace mlir::tilec::tile {
/// Parse a flag (`true`, `false`, 1 or 0) and a count (an integer) of a
/// named op's configuration. They fail without a diagnostic of their own
/// where the value is something else: the attribute's generated parser
/// names the field and its type.
FailureOr<BoolAttr> parseConfigFlag(AsmParser &parser);
FailureOr<std::optional<int64_t>> parseConfigCount(AsmParser &parser);
} // namespace mlir::tilec::tile

#include "tilec/Dialect/Tile/IR/TileOpsEnums.h.inc"
#include "tilec/Dialect/Tile/IR/TileAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tilec/Dialect/Tile/IR/TileOpsAttrDefs.h.inc"

namespace mlir::tilec::tile {

/// Returns the distributed layout of `type`, or null when it has none.
DistributedLayoutAttrInterface getDistributedLayout(Type type);

/// Returns the linear layout of a tensor type with a distributed encoding.
LinearLayout getLinearLayout(RankedTensorType type);

/// Returns the number of elements of `type` held by each thread (one for
/// scalars).
unsigned getElemsPerThread(Type type);

} // namespace mlir::tilec::tile

#endif // TILEC_DIALECT_TILE_IR_TILEATTRS_H
