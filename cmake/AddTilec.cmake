#===- AddTilec.cmake - helpers for tilec libraries -----------------------===//
#
# add_tilec_library(name [UNITY] SOURCES... [DEPENDS ...] [MLIR_LIBS ...]
#                   [LINK_COMPONENTS ...])
#
# A thin wrapper over add_mlir_library. tilec libraries are never part of
# libMLIR.so; the MLIR libraries they use are linked through
# mlir_target_link_libraries so that, with MLIR_LINK_MLIR_DYLIB=ON, everything
# resolves against the one shared libMLIR.so instead of static archives (which
# would register every cl::opt twice once the plugin is loaded into mlir-opt).
#
# UNITY: with TILEC_UNITY_BUILD (on by default), the library's sources compile
# in batches of TILEC_UNITY_BATCH files, one translation unit each. For the
# libraries whose files all include the same large headers (the NVVM and LLVM
# dialects for TileToNVVM, the tile dialect for the passes), parsing those
# headers is most of each file's compile time. A file's own helpers stay in
# an anonymous namespace, so two files of one library must not give theirs
# the same name.
#
#===----------------------------------------------------------------------===//
function(add_tilec_library name)
  cmake_parse_arguments(ARG "UNITY" "" "DEPENDS;MLIR_LIBS;LINK_COMPONENTS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR
    DISABLE_INSTALL
    DEPENDS ${ARG_DEPENDS}
    LINK_COMPONENTS ${ARG_LINK_COMPONENTS}
    LINK_LIBS ${ARG_LINK_LIBS})
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  if(ARG_UNITY AND TILEC_UNITY_BUILD)
    set_target_properties(${name} PROPERTIES
      UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${TILEC_UNITY_BATCH})
  endif()
  set_property(GLOBAL APPEND PROPERTY TILEC_LIBS ${name})
endfunction()
