//===- ContribAttentionOps.cpp - com.microsoft rotary and attention -------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "NodeImporter.h"

using namespace mlir;
using namespace mlc::graph;
using namespace mlc::onnx_import;

void mlc::onnx_import::addContribAttentionConverters(ConverterTable &t) {}
