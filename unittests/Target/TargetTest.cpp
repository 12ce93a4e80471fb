//===- TargetTest.cpp - Target registry and CPU object emission -----------===//
//
// Part of the mlc project, under the Apache License v2.0 with LLVM Exceptions.
// See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "mlc/InitAll.h"
#include "mlc/Target/CPU/CPUTarget.h"
#include "mlc/Target/TargetBackend.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallString.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlc::target;

namespace {
/// A loop-level function: c = a + b on 2x3 tensors, result into `c`.
constexpr const char *kAddModule = R"mlir(
func.func @add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>,
               %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.add ins(%a, %b : tensor<2x3xf32>, tensor<2x3xf32>)
                  outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
)mlir";

class TargetTest : public ::testing::Test {
protected:
  TargetTest() {
    DialectRegistry registry;
    mlc::registerEverything(registry);
    context.appendDialectRegistry(registry);
    registerAllTargetBackends();
  }

  /// Parses kAddModule, lowers it with `backend` and serializes it.
  std::string compile(const TargetBackend &backend, std::string &diagnostic) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      diagnostic = diag.str();
      return success();
    });
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kAddModule, &context);
    if (!module)
      return "";
    PassManager pm(&context);
    backend.buildLoweringPipeline(pm);
    if (failed(pm.run(*module)))
      return "";
    llvm::SmallString<0> object;
    llvm::raw_svector_ostream os(object);
    if (failed(backend.serialize(*module, os)))
      return "";
    return std::string(object.str());
  }

  /// ELF e_machine of an object (little-endian), or -1.
  static int elfMachine(const std::string &object) {
    if (object.size() < 20 || object.compare(0, 4,
                                             "\x7f"
                                             "ELF") != 0)
      return -1;
    return static_cast<unsigned char>(object[18]) |
           (static_cast<unsigned char>(object[19]) << 8);
  }

  MLIRContext context;
};

TEST_F(TargetTest, RegistryListsCPU) {
  auto names = getRegisteredTargetBackends();
  EXPECT_TRUE(llvm::any_of(names, [](const auto &entry) {
    return entry.first == "cpu" && !entry.second.empty();
  }));
  EXPECT_EQ(createTargetBackend("no-such-target", TargetOptions()), nullptr);
  auto cpu = createTargetBackend("cpu", TargetOptions());
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(cpu->getName(), "cpu");
}

TEST_F(TargetTest, EmitsX86_64Object) {
  auto backend = createCPUTargetBackend({"x86_64-linux-gnu", "znver3", "", 3});
  std::string diagnostic;
  std::string object = compile(*backend, diagnostic);
  ASSERT_FALSE(object.empty()) << diagnostic;
  EXPECT_EQ(elfMachine(object), 62); // EM_X86_64
  EXPECT_NE(object.find("add"), std::string::npos);
}

TEST_F(TargetTest, EmitsAArch64Object) {
  auto backend = createCPUTargetBackend({"aarch64-linux-gnu", "", "", 2});
  std::string diagnostic;
  std::string object = compile(*backend, diagnostic);
  ASSERT_FALSE(object.empty()) << diagnostic;
  EXPECT_EQ(elfMachine(object), 183); // EM_AARCH64
}

TEST_F(TargetTest, UnknownTripleIsADiagnostic) {
  auto backend = createCPUTargetBackend({"nonsense-unknown-triple", "", "", 3});
  std::string diagnostic;
  EXPECT_TRUE(compile(*backend, diagnostic).empty());
  EXPECT_NE(diagnostic.find("unknown target triple 'nonsense-unknown-triple'"),
            std::string::npos)
      << diagnostic;
}
} // namespace
