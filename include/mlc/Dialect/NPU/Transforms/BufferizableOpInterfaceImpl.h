//===- BufferizableOpInterfaceImpl.h - NPU kernels in bufferization -*- C++
//-*-===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef MLC_DIALECT_NPU_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define MLC_DIALECT_NPU_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlc::npu {

/// Lets One-Shot Bufferize take `mlc_npu.matmul` like a linalg op: it
/// writes its init in place, and every buffer it gets has the identity
/// layout (a strided view is copied into a fresh buffer first), as the
/// NPU's DMA needs.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace mlc::npu

#endif // MLC_DIALECT_NPU_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
