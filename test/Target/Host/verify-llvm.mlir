// RUN: mlc-opt %s --split-input-file --mlc-host-verify-llvm --verify-diagnostics

// What serialization needs: only LLVM (and OpenMP) ops.
module {
  // expected-error @+1 {{LLVM phase: op 'func.func' is not in the LLVM or OpenMP dialect}}
  func.func @left_over() {
    return
  }
}

// -----

module {
  // expected-error @+1 {{LLVM phase: model function 'm' has a signature but no arena size}}
  llvm.func @m() attributes {mlc_loop.signature = "{}"} {
    llvm.return
  }
}

// -----

// A lowered model passes.
module {
  llvm.func @ok() attributes {mlc_loop.signature = "{}", mlc_loop.arena_size = 0 : i64} {
    llvm.return
  }
}
