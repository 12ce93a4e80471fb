//===- Precompiled.cpp - Anchor of the shared precompiled header ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Empty: CMake builds the precompiled header of MLC_PCH_HEADERS for this
// target and every mlc library reuses it.
//
//===----------------------------------------------------------------------===//
