//! With the `libxsmm` feature, link Debian's static libxsmm (libxsmm-dev: /usr/lib/libxsmm.a,
//! libxsmmnoblas.a for the BLAS fallback symbols it does not use here).
fn main() {
    if std::env::var_os("CARGO_FEATURE_LIBXSMM").is_some() {
        println!("cargo:rustc-link-search=native=/usr/lib");
        println!("cargo:rustc-link-lib=static=xsmm");
        println!("cargo:rustc-link-lib=static=xsmmnoblas");
        for lib in ["m", "dl", "pthread", "stdc++"] {
            println!("cargo:rustc-link-lib=dylib={lib}");
        }
    }
}
