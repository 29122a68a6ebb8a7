//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the types of the `tile` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILETYPES_TD
#define TILEC_DIALECT_TILE_IR_TILETYPES_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "tilec/Dialect/Tile/IR/TileAttrs.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "Pointer to global memory with an element type";
  let description = [{
    A kernel parameter pointing at the first element of a tensor in global
    memory (`.global` state space). The element type fixes the size of one
    element; it is what the runtime checks the argument's dtype against.

    ```mlir
    !tile.ptr<bf16>
    ```
  }];
  let parameters = (ins "Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
  let genVerifyDecl = 1;
}

def Tile_ViewType : Tile_Type<"View", "view"> {
  let summary = "Strided view of a tensor in global memory";
  let description = [{
    A rank-N window onto global memory: a base pointer, N sizes and N strides
    (in elements). Sizes and strides are static or dynamic (`?`); their static
    values are part of the type so that lowerings know, e.g., which dimension
    is contiguous (stride 1) without looking at producers. `tile.load` and
    `tile.store` check every access against the sizes.

    ```mlir
    !tile.view<?x?xbf16, strides = [?, 1]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType,
                        ArrayRefParameter<"int64_t">:$strides);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    unsigned getRank() const { return getShape().size(); }
    /// Returns the dimension with static stride 1, if any.
    std::optional<unsigned> getContiguousDim() const;
  }];
}

def Tile_SmemType : Tile_Type<"Smem", "smem"> {
  let summary = "A ring of tile buffers in shared memory";
  let description = [{
    `shape[0]` buffers ("stages") of a tile of `shape[1:]` elements, laid out
    per the `#tile.shared` encoding. Created by `tile.local_alloc`, written by
    `tile.async_copy` (or `tile.local_store`) and read by `tile.local_load`.

    ```mlir
    !tile.smem<4x128x32xbf16, #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType,
                        "SharedEncodingAttr":$encoding);
  let assemblyFormat = "`<` custom<Shape>($shape, $elementType) `,` $encoding `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getNumStages() const { return getShape()[0]; }
    ArrayRef<int64_t> getTileShape() const { return getShape().drop_front(); }
    int64_t getTileElems() const;
    int64_t getSizeInBytes() const;
  }];
}

def Tile_TensorMapType : Tile_Type<"TensorMap", "tensor_map"> {
  let summary = "A TMA tensor map: a view described for the copy engine";
  let description = [{
    A handle to a `CUtensorMap` describing a view of rank 2 to 5 in global
    memory for `cp.async.bulk.tensor`: the copy moves one box of `shape`
    elements (in the view's dimension order) into shared memory laid out per
    `encoding` (its swizzle becomes the map's swizzle mode). A box is a 2-D
    tile of the view's last two dimensions: leading box dimensions are 1
    (e.g. one head of a [batch, heads, seq, dim] tensor), so that a copy
    never crosses into a neighbouring matrix and rows past the matrix's end
    read as zero. Created by
    `tile.make_tensor_map`; the runtime encodes the map on the host
    (`cuTensorMapEncodeTiled`) from the launch arguments and passes it as a
    `__grid_constant__` kernel parameter.

    ```mlir
    !tile.tensor_map<128x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
    !tile.tensor_map<1x1x128x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "Type":$elementType,
                        "SharedEncodingAttr":$encoding);
  let assemblyFormat = "`<` custom<Shape>($shape, $elementType) `,` $encoding `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The box's last two dimensions: the 2-D tile one copy writes.
    ArrayRef<int64_t> getTileBox() const;
    /// Bytes one box copy writes to shared memory.
    int64_t getBoxBytes() const;
  }];
}

def Tile_MBarrierType : Tile_Type<"MBarrier", "mbarrier"> {
  let summary = "An array of transaction barriers in shared memory";
  let description = [{
    `size` `mbarrier` objects (8 bytes each) in shared memory, indexed by an
    i32 (typically the stage of a ring). Created by `tile.mbarrier_alloc`.

    ```mlir
    !tile.mbarrier<4>
    ```
  }];
  let parameters = (ins "int64_t":$size);
  let assemblyFormat = "`<` $size `>`";
  let genVerifyDecl = 1;
}

#endif // TILEC_DIALECT_TILE_IR_TILETYPES_TD
