#===- AddMLC.cmake - Helpers to declare mlc libraries and tools --------===#
#
# Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
# See LICENSE for license information.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#===--------------------------------------------------------------------===#

# Sources that a precompiled header makes cheaper: the MLIR IR and pass
# headers almost every mlc translation unit includes. Targets share the PCH
# built for MLCPrecompiled (see lib/CMakeLists.txt).
set(MLC_PCH_HEADERS
  <mlir/IR/Builders.h>
  <mlir/IR/BuiltinOps.h>
  <mlir/IR/BuiltinTypes.h>
  <mlir/IR/Diagnostics.h>
  <mlir/IR/OpDefinition.h>
  <mlir/IR/OpImplementation.h>
  <mlir/IR/PatternMatch.h>
  <mlir/Pass/Pass.h>
  <mlir/Interfaces/InferTypeOpInterface.h>
  <mlir/Interfaces/SideEffectInterfaces.h>
  <mlir/Dialect/Func/IR/FuncOps.h>
  <mlir/Dialect/Arith/IR/Arith.h>
  <mlir/Transforms/DialectConversion.h>
  <llvm/ADT/STLExtras.h>
  <llvm/ADT/SmallVector.h>
  <llvm/Support/raw_ostream.h>
)

# mlc_add_library(name SRC... [DEPENDS tgt...] [LINK_LIBS lib...])
#
# A static mlc library. Links LLVM and MLIR through their shared libraries,
# reuses the project's precompiled header, and is exported in the installed
# CMake package (find_package(MLC)).
function(mlc_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  add_dependencies(${name} mlir-generic-headers)
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(MLC_USE_PCH AND TARGET MLCPrecompiled)
    target_precompile_headers(${name} REUSE_FROM MLCPrecompiled)
  endif()
  set_property(GLOBAL APPEND PROPERTY MLC_EXPORTED_LIBS ${name})
  install(TARGETS ${name} EXPORT MLCTargets
    ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
endfunction()

# mlc_add_tool(name SRC... [LINK_LIBS lib...] [NO_INSTALL])
function(mlc_add_tool name)
  cmake_parse_arguments(ARG "NO_INSTALL" "" "LINK_LIBS" ${ARGN})
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  add_dependencies(${name} mlir-generic-headers)
  target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBS} MLIR LLVM)
  if(MLC_USE_PCH AND TARGET MLCPrecompiled)
    target_precompile_headers(${name} REUSE_FROM MLCPrecompiled)
  endif()
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${name} EXPORT MLCTargets RUNTIME DESTINATION bin)
  endif()
endfunction()
