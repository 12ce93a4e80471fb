//===- BufferCache.cpp - Run-time-sized buffers kept across runs ----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/Target/Host/BufferCache.h"

#include "mlc-runtime/ModelSignature.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kTake = "mlc_buffer_cache_take";
constexpr llvm::StringLiteral kGive = "mlc_buffer_cache_give";

/// The cache's functions. `take` returns the address of a block of at
/// least `bytes` bytes: the smallest idle block that is large enough; else
/// a new one from malloc, kept in the slot of an idle block too small
/// (freed: the cache holds about as many blocks as buffers are live at
/// once) or in an empty slot (or not kept when every slot is busy). `give`
/// marks a kept block idle, and frees one that was not kept. The rows are
/// {address, bytes, in use, unused} behind a key row that says whether
/// they were set up (ModelSignature.h).
constexpr const char *kSource = R"mlir(
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @free(!llvm.ptr)
func.func private @mlc_buffer_cache_key(%rows: {0}) -> i64 {{
  %address = memref.extract_aligned_pointer_as_index %rows : {0} -> index
  %a = arith.index_cast %address : index to i64
  %k = arith.constant {2} : i64
  %key = arith.xori %a, %k : i64
  return %key : i64
}
func.func private @mlc_buffer_cache_take(%rows: {0}, %bytes: i64) -> i64 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %columns = arith.constant {3} : index
  %n = arith.constant {1} : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %max = arith.constant 9223372036854775807 : i64
  %true = arith.constant true
  %key = func.call @mlc_buffer_cache_key(%rows) : ({0}) -> i64
  %stored = memref.load %rows[%c0, %c0] : {0}
  %unset = arith.cmpi ne, %stored, %key : i64
  scf.if %unset {{
    scf.for %i = %c1 to %n step %c1 {{
      scf.for %j = %c0 to %columns step %c1 {{
        memref.store %zero, %rows[%i, %j] : {0}
      }
    }
    memref.store %key, %rows[%c0, %c0] : {0}
  }
  %found:4 = scf.for %i = %c1 to %n step %c1
      iter_args(%best = %n, %bestBytes = %max, %small = %n, %vacant = %n)
      -> (index, i64, index, index) {{
    %address = memref.load %rows[%i, %c0] : {0}
    %size = memref.load %rows[%i, %c1] : {0}
    %used = memref.load %rows[%i, %c2] : {0}
    %held = arith.cmpi ne, %address, %zero : i64
    %unused = arith.cmpi eq, %used, %zero : i64
    %idle = arith.andi %held, %unused : i1
    %fits = arith.cmpi uge, %size, %bytes : i64
    %tighter = arith.cmpi ult, %size, %bestBytes : i64
    %idleFits = arith.andi %idle, %fits : i1
    %better = arith.andi %idleFits, %tighter : i1
    %best2 = arith.select %better, %i, %best : index
    %bestBytes2 = arith.select %better, %size, %bestBytes : i64
    %short = arith.xori %fits, %true : i1
    %noSmall = arith.cmpi eq, %small, %n : index
    %idleShort = arith.andi %idle, %short : i1
    %firstSmall = arith.andi %idleShort, %noSmall : i1
    %small2 = arith.select %firstSmall, %i, %small : index
    %empty = arith.xori %held, %true : i1
    %noVacant = arith.cmpi eq, %vacant, %n : index
    %firstVacant = arith.andi %empty, %noVacant : i1
    %vacant2 = arith.select %firstVacant, %i, %vacant : index
    scf.yield %best2, %bestBytes2, %small2, %vacant2 : index, i64, index, index
  }
  %hit = arith.cmpi ne, %found#0, %n : index
  %result = scf.if %hit -> (i64) {{
    memref.store %one, %rows[%found#0, %c2] : {0}
    %address = memref.load %rows[%found#0, %c0] : {0}
    scf.yield %address : i64
  } else {{
    %replace = arith.cmpi ne, %found#2, %n : index
    scf.if %replace {{
      %old = memref.load %rows[%found#2, %c0] : {0}
      %p = llvm.inttoptr %old : i64 to !llvm.ptr
      llvm.call @free(%p) : (!llvm.ptr) -> ()
      memref.store %zero, %rows[%found#2, %c0] : {0}
      memref.store %zero, %rows[%found#2, %c1] : {0}
    }
    %slot = arith.select %replace, %found#2, %found#3 : index
    %p = llvm.call @malloc(%bytes) : (i64) -> !llvm.ptr
    %address = llvm.ptrtoint %p : !llvm.ptr to i64
    %slotted = arith.cmpi ne, %slot, %n : index
    %allocated = arith.cmpi ne, %address, %zero : i64
    %keep = arith.andi %slotted, %allocated : i1
    scf.if %keep {{
      memref.store %address, %rows[%slot, %c0] : {0}
      memref.store %bytes, %rows[%slot, %c1] : {0}
      memref.store %one, %rows[%slot, %c2] : {0}
    }
    scf.yield %address : i64
  }
  return %result : i64
}
func.func private @mlc_buffer_cache_give(%rows: {0}, %address: i64) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = arith.constant {1} : index
  %zero = arith.constant 0 : i64
  %slot = scf.for %i = %c1 to %n step %c1 iter_args(%s = %n) -> (index) {{
    %a = memref.load %rows[%i, %c0] : {0}
    %same = arith.cmpi eq, %a, %address : i64
    %s2 = arith.select %same, %i, %s : index
    scf.yield %s2 : index
  }
  %kept = arith.cmpi ne, %slot, %n : index
  scf.if %kept {{
    memref.store %zero, %rows[%slot, %c2] : {0}
  } else {{
    %p = llvm.inttoptr %address : i64 to !llvm.ptr
    llvm.call @free(%p) : (!llvm.ptr) -> ()
  }
  return
}
)mlir";
} // namespace

int64_t mlc::host::getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

MemRefType mlc::host::getBufferCacheType(MLIRContext *context) {
  return MemRefType::get(
      {mlc::abi::kBufferCacheSlots + 1, mlc::abi::kBufferCacheColumns},
      IntegerType::get(context, 64));
}

LogicalResult mlc::host::addBufferCacheFunctions(ModuleOp module) {
  if (module.lookupSymbol(kTake))
    return success();
  MLIRContext *context = module.getContext();
  std::string type;
  llvm::raw_string_ostream os(type);
  os << getBufferCacheType(context);
  std::string text = llvm::formatv(kSource, type, mlc::abi::kBufferCacheSlots + 1,
                                   int64_t(mlc::abi::kBufferCacheKey),
                                   mlc::abi::kBufferCacheColumns);
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(text, ParserConfig(context));
  if (!parsed)
    return module.emitError("cannot build the buffer cache's functions");
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  for (Operation &op : llvm::make_early_inc_range(*parsed->getBody())) {
    auto symbol = cast<SymbolOpInterface>(op);
    if (module.lookupSymbol(symbol.getName()))
      continue;
    op.remove();
    b.insert(&op);
  }
  return success();
}

void mlc::host::takeFromBufferCache(memref::AllocOp alloc, Value rows,
                                    Operation *lastUse) {
  MLIRContext *context = alloc.getContext();
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  MemRefType type = alloc.getType();
  // Its bytes, with room to align the block's start.
  Value bytes = arith::ConstantIndexOp::create(
      b, loc, getElementBytes(type.getElementType()));
  unsigned dynamic = 0;
  for (int64_t size : type.getShape()) {
    Value dim = ShapedType::isDynamic(size)
                    ? alloc.getDynamicSizes()[dynamic++]
                    : arith::ConstantIndexOp::create(b, loc, size).getResult();
    bytes = arith::MulIOp::create(b, loc, bytes, dim);
  }
  Type i64 = b.getI64Type();
  int64_t alignment = mlc::abi::kArenaAlignment;
  Value bytes64 = arith::IndexCastOp::create(b, loc, i64, bytes);
  Value need = arith::AddIOp::create(
      b, loc, bytes64, arith::ConstantIntOp::create(b, loc, i64, alignment));
  Value block =
      func::CallOp::create(b, loc, kTake, TypeRange{i64}, ValueRange{rows, need})
          .getResult(0);
  Value aligned = arith::AndIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, block,
          arith::ConstantIntOp::create(b, loc, i64, alignment - 1)),
      arith::ConstantIntOp::create(b, loc, i64, -alignment));
  // The block as a memref<?xi8> (the descriptor the LLVM lowering gives
  // one), viewed at the buffer's type.
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto sizes = LLVM::LLVMArrayType::get(i64, 1);
  auto descriptorType =
      LLVM::LLVMStructType::getLiteral(context, {ptrType, ptrType, i64, sizes, sizes});
  Value pointer = LLVM::IntToPtrOp::create(b, loc, ptrType, aligned);
  Value descriptor = LLVM::PoisonOp::create(b, loc, descriptorType);
  auto insert = [&](Value v, ArrayRef<int64_t> position) {
    descriptor = LLVM::InsertValueOp::create(b, loc, descriptor, v, position);
  };
  insert(pointer, {0});
  insert(pointer, {1});
  insert(arith::ConstantIntOp::create(b, loc, i64, 0), {2});
  insert(bytes64, {3, 0});
  insert(arith::ConstantIntOp::create(b, loc, i64, 1), {4, 0});
  auto raw = MemRefType::get({ShapedType::kDynamic}, b.getI8Type());
  Value memory =
      UnrealizedConversionCastOp::create(b, loc, raw, descriptor).getResult(0);
  Value view = memref::ViewOp::create(b, loc, type, memory,
                                      arith::ConstantIndexOp::create(b, loc, 0),
                                      alloc.getDynamicSizes());
  alloc.replaceAllUsesWith(view);
  alloc.erase();
  OpBuilder after(lastUse->getBlock(), std::next(lastUse->getIterator()));
  func::CallOp::create(after, loc, kGive, TypeRange{}, ValueRange{rows, block});
}
