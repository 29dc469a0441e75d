//! A small hand-written binding of oneDNN 2.x's C API (`dnnl.h` of Debian's `libdnnl-dev` 2.6),
//! loaded at run time with libloading like the system BLASes: CPU engine and stream, memory
//! descriptors by tag, matmul and forward-convolution primitives, and the reorder that puts
//! weights into the format a primitive chose for `format_tag any`.
//!
//! The constants and signatures are those of `/usr/include/oneapi/dnnl/dnnl.h` and
//! `dnnl_types.h` of 2.6.3 (the v2 API: op descriptors `dnnl_*_desc_init`, then
//! `dnnl_primitive_desc_create`; v3 changed all of this). The descriptor structs are only ever
//! passed by pointer, so they are held here as opaque, 8-aligned byte blocks larger than the
//! header's (`sizeof` in 2.6.3: memory desc 696, matmul desc 2800, convolution desc 5976).
//!
//! Every memory object owns its buffer (`DNNL_MEMORY_ALLOCATE`): inputs are copied in once when an
//! [`Op`] is built, so no borrowed Rust buffer has to outlive a primitive.
//!
//! Threads: this oneDNN is built on OpenMP (libgomp). [`Dnnl::set_threads`] calls libgomp's
//! `omp_set_num_threads` on the calling thread, which is the `omp_get_max_threads()` oneDNN reads
//! when it creates and runs primitives there.

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};

type Handle = *mut c_void;
type Status = c_int;

/// `dnnl_data_type_t`.
pub mod dt {
    use std::ffi::c_int;
    /// `dnnl_bf16`
    pub const BF16: c_int = 2;
    /// `dnnl_f32`
    pub const F32: c_int = 3;
    /// `dnnl_s32`
    pub const S32: c_int = 4;
    /// `dnnl_s8`
    pub const S8: c_int = 5;
    /// `dnnl_u8`
    pub const U8: c_int = 6;
}

/// `dnnl_format_tag_t`.
pub mod tag {
    use std::ffi::c_int;
    /// `dnnl_format_tag_any`: the primitive chooses.
    pub const ANY: c_int = 1;
    /// `dnnl_ab`: a row-major matrix.
    pub const AB: c_int = 3;
    /// `dnnl_abcd` = `dnnl_nchw` = `dnnl_oihw`.
    pub const NCHW: c_int = 5;
    /// `dnnl_acdb` = `dnnl_nhwc`.
    pub const NHWC: c_int = 20;
}

const ENGINE_CPU: c_int = 1;
const STREAM_DEFAULT_FLAGS: c_uint = 1;
const FORWARD_INFERENCE: c_int = 96;
const CONVOLUTION_DIRECT: c_int = 1;
const QUERY_IMPL_INFO_STR: c_int = 8;
const QUERY_WEIGHTS_MD: c_int = 131;
const QUERY_DST_MD: c_int = 133;
const ARG_SRC: c_int = 1;
const ARG_DST: c_int = 17;
const ARG_WEIGHTS: c_int = 33;
const ARG_FROM: c_int = ARG_SRC;
const ARG_TO: c_int = ARG_DST;
/// `DNNL_MEMORY_ALLOCATE`: the library allocates the buffer.
const MEMORY_ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

/// `dnnl_memory_desc_t` (696 bytes in 2.6.3), opaque.
#[repr(C, align(8))]
struct Md([u8; 1024]);

/// `dnnl_matmul_desc_t` / `dnnl_convolution_desc_t` (2800 / 5976 bytes in 2.6.3), opaque.
#[repr(C, align(8))]
struct OpDesc([u8; 8192]);

/// `dnnl_exec_arg_t`.
#[repr(C)]
struct ExecArg {
    arg: c_int,
    memory: Handle,
}

/// `dnnl_version_t`.
#[repr(C)]
struct Version {
    major: c_int,
    minor: c_int,
    patch: c_int,
    hash: *const c_char,
    cpu_runtime: c_uint,
    gpu_runtime: c_uint,
}

type Dims = [i64; 12];

/// The entry points used, with the C signatures of `dnnl.h` 2.6.
struct Api {
    engine_create: unsafe extern "C" fn(*mut Handle, c_int, usize) -> Status,
    engine_destroy: unsafe extern "C" fn(Handle) -> Status,
    stream_create: unsafe extern "C" fn(*mut Handle, Handle, c_uint) -> Status,
    stream_wait: unsafe extern "C" fn(Handle) -> Status,
    stream_destroy: unsafe extern "C" fn(Handle) -> Status,
    memory_desc_init_by_tag:
        unsafe extern "C" fn(*mut Md, c_int, *const i64, c_int, c_int) -> Status,
    memory_desc_get_size: unsafe extern "C" fn(*const c_void) -> usize,
    memory_desc_equal: unsafe extern "C" fn(*const c_void, *const c_void) -> c_int,
    memory_create: unsafe extern "C" fn(*mut Handle, *const c_void, Handle, *mut c_void) -> Status,
    memory_get_data_handle: unsafe extern "C" fn(Handle, *mut *mut c_void) -> Status,
    memory_destroy: unsafe extern "C" fn(Handle) -> Status,
    matmul_desc_init: unsafe extern "C" fn(
        *mut OpDesc,
        *const c_void,
        *const c_void,
        *const c_void,
        *const c_void,
    ) -> Status,
    #[allow(clippy::type_complexity)]
    convolution_forward_desc_init: unsafe extern "C" fn(
        *mut OpDesc,
        c_int,
        c_int,
        *const c_void,
        *const c_void,
        *const c_void,
        *const c_void,
        *const i64,
        *const i64,
        *const i64,
    ) -> Status,
    primitive_desc_create:
        unsafe extern "C" fn(*mut Handle, *const c_void, *const c_void, Handle, Handle) -> Status,
    primitive_desc_query: unsafe extern "C" fn(Handle, c_int, c_int, *mut c_void) -> Status,
    primitive_desc_query_md: unsafe extern "C" fn(Handle, c_int, c_int) -> *const c_void,
    primitive_desc_destroy: unsafe extern "C" fn(Handle) -> Status,
    primitive_create: unsafe extern "C" fn(*mut Handle, Handle) -> Status,
    primitive_execute: unsafe extern "C" fn(Handle, Handle, c_int, *const ExecArg) -> Status,
    primitive_destroy: unsafe extern "C" fn(Handle) -> Status,
    reorder_primitive_desc_create: unsafe extern "C" fn(
        *mut Handle,
        *const c_void,
        Handle,
        *const c_void,
        Handle,
        *const c_void,
    ) -> Status,
    version: unsafe extern "C" fn() -> *const Version,
}

fn check(what: &str, s: Status) -> Result<(), String> {
    let name = match s {
        0 => return Ok(()),
        1 => "out_of_memory",
        2 => "invalid_arguments",
        3 => "unimplemented",
        5 => "runtime_error",
        _ => "other",
    };
    Err(format!("oneDNN {what}: status {s} ({name})"))
}

/// oneDNN loaded from `libdnnl.so.2`, with one CPU engine and one stream.
pub struct Dnnl {
    api: Api,
    engine: Handle,
    stream: Handle,
    omp_set_num_threads: Option<unsafe extern "C" fn(c_int)>,
    omp_get_max_threads: Option<unsafe extern "C" fn() -> c_int>,
    _gomp: Option<libloading::Library>,
    _lib: libloading::Library,
}

impl Dnnl {
    /// Loads `libdnnl.so.2` (and the libgomp it runs on) and creates a CPU engine and stream.
    pub fn load() -> Result<Dnnl, String> {
        let mut last = String::new();
        let mut found = None;
        for p in [
            "libdnnl.so.2",
            "/usr/lib/x86_64-linux-gnu/libdnnl.so.2",
            "libdnnl.so",
        ] {
            // SAFETY: loading oneDNN runs its initialisers, which is what linking it would do.
            match unsafe { libloading::Library::new(p) } {
                Ok(l) => {
                    found = Some(l);
                    break;
                }
                Err(e) => last = e.to_string(),
            }
        }
        let lib = found.ok_or_else(|| {
            format!("cannot load libdnnl.so.2 (apt-get install libdnnl-dev): {last}")
        })?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the field the symbol is stored in has the C signature of `dnnl.h` 2.6.
                *unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| format!("oneDNN symbol {}: {e}", $name))?
            };
        }
        let api = Api {
            engine_create: sym!("dnnl_engine_create"),
            engine_destroy: sym!("dnnl_engine_destroy"),
            stream_create: sym!("dnnl_stream_create"),
            stream_wait: sym!("dnnl_stream_wait"),
            stream_destroy: sym!("dnnl_stream_destroy"),
            memory_desc_init_by_tag: sym!("dnnl_memory_desc_init_by_tag"),
            memory_desc_get_size: sym!("dnnl_memory_desc_get_size"),
            memory_desc_equal: sym!("dnnl_memory_desc_equal"),
            memory_create: sym!("dnnl_memory_create"),
            memory_get_data_handle: sym!("dnnl_memory_get_data_handle"),
            memory_destroy: sym!("dnnl_memory_destroy"),
            matmul_desc_init: sym!("dnnl_matmul_desc_init"),
            convolution_forward_desc_init: sym!("dnnl_convolution_forward_desc_init"),
            primitive_desc_create: sym!("dnnl_primitive_desc_create"),
            primitive_desc_query: sym!("dnnl_primitive_desc_query"),
            primitive_desc_query_md: sym!("dnnl_primitive_desc_query_md"),
            primitive_desc_destroy: sym!("dnnl_primitive_desc_destroy"),
            primitive_create: sym!("dnnl_primitive_create"),
            primitive_execute: sym!("dnnl_primitive_execute"),
            primitive_destroy: sym!("dnnl_primitive_destroy"),
            reorder_primitive_desc_create: sym!("dnnl_reorder_primitive_desc_create"),
            version: sym!("dnnl_version"),
        };
        // libgomp is already mapped (libdnnl depends on it): this returns the same instance
        // SAFETY: loading a library that is already loaded only takes a reference to it.
        let gomp = unsafe { libloading::Library::new("libgomp.so.1") }.ok();
        // SAFETY: `void omp_set_num_threads(int)` and `int omp_get_max_threads(void)` (omp.h).
        let (omp_set_num_threads, omp_get_max_threads) = match &gomp {
            Some(g) => unsafe {
                (
                    g.get::<unsafe extern "C" fn(c_int)>(b"omp_set_num_threads\0")
                        .ok()
                        .map(|s| *s),
                    g.get::<unsafe extern "C" fn() -> c_int>(b"omp_get_max_threads\0")
                        .ok()
                        .map(|s| *s),
                )
            },
            None => (None, None),
        };
        let mut engine: Handle = std::ptr::null_mut();
        let mut stream: Handle = std::ptr::null_mut();
        // SAFETY: out-pointers to locals; engine index 0 of the CPU kind always exists.
        check("engine_create", unsafe {
            (api.engine_create)(&mut engine, ENGINE_CPU, 0)
        })?;
        // SAFETY: `engine` was just created.
        check("stream_create", unsafe {
            (api.stream_create)(&mut stream, engine, STREAM_DEFAULT_FLAGS)
        })?;
        Ok(Dnnl {
            api,
            engine,
            stream,
            omp_set_num_threads,
            omp_get_max_threads,
            _gomp: gomp,
            _lib: lib,
        })
    }

    /// "2.6.3 (CPU runtime OpenMP)".
    pub fn version(&self) -> String {
        // SAFETY: dnnl_version returns a pointer to a static struct.
        let v = unsafe { &*(self.api.version)() };
        let rt = match v.cpu_runtime {
            1 => "sequential",
            2 => "OpenMP",
            4 => "TBB",
            8 => "threadpool",
            _ => "other",
        };
        format!("{}.{}.{} (CPU runtime {rt})", v.major, v.minor, v.patch)
    }

    /// Sets the OpenMP threads oneDNN uses for primitives created and run on this thread;
    /// returns what `omp_get_max_threads` then reports (None without libgomp).
    pub fn set_threads(&self, n: usize) -> Option<usize> {
        let (set, get) = (self.omp_set_num_threads?, self.omp_get_max_threads?);
        // SAFETY: plain libgomp calls on the calling thread's ICVs.
        unsafe {
            set(n as c_int);
            Some(get() as usize)
        }
    }

    fn md(&self, dims: &[i64], dt: c_int, tag: c_int) -> Result<Box<Md>, String> {
        let mut d: Dims = [0; 12];
        d[..dims.len()].copy_from_slice(dims);
        let mut md = Box::new(Md([0; 1024]));
        // SAFETY: `md` is larger than dnnl_memory_desc_t and 8-aligned; `d` holds 12 dims.
        check("memory_desc_init_by_tag", unsafe {
            (self.api.memory_desc_init_by_tag)(&mut *md, dims.len() as c_int, d.as_ptr(), dt, tag)
        })?;
        Ok(md)
    }

    /// A library-allocated memory object for `md`, with `bytes` copied in if given.
    fn memory(&self, md: *const c_void, bytes: Option<&[u8]>) -> Result<Mem<'_>, String> {
        let mut h: Handle = std::ptr::null_mut();
        // SAFETY: `md` points to a valid memory descriptor (built here or queried from a live pd).
        check("memory_create", unsafe {
            (self.api.memory_create)(&mut h, md, self.engine, MEMORY_ALLOCATE)
        })?;
        let mem = Mem { d: self, h };
        // SAFETY: as above.
        let size = unsafe { (self.api.memory_desc_get_size)(md) };
        if let Some(b) = bytes {
            if b.len() != size {
                return Err(format!(
                    "input of {} bytes for a memory of {size} bytes",
                    b.len()
                ));
            }
            let p = mem.ptr()?;
            // SAFETY: the library allocated `size` bytes at `p`; `b` has `size` bytes.
            unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), p as *mut u8, size) };
        }
        Ok(mem)
    }

    fn primitive(&self, pd: Handle) -> Result<Prim<'_>, String> {
        let pd = Pd { d: self, h: pd };
        let mut h: Handle = std::ptr::null_mut();
        // SAFETY: `pd` is a live primitive descriptor.
        check("primitive_create", unsafe {
            (self.api.primitive_create)(&mut h, pd.h)
        })?;
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: impl_info_str writes a `const char *` owned by the pd.
        let s = unsafe {
            (self.api.primitive_desc_query)(
                pd.h,
                QUERY_IMPL_INFO_STR,
                0,
                &mut name as *mut _ as *mut c_void,
            )
        };
        let impl_name = if s == 0 && !name.is_null() {
            // SAFETY: a NUL-terminated string owned by the live pd.
            unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned()
        } else {
            "?".into()
        };
        Ok(Prim { h, pd, impl_name })
    }

    fn execute(&self, p: &Prim<'_>, args: &[ExecArg]) -> Result<(), String> {
        // SAFETY: `p` is live and `args` name live memories of the descriptors it was made for.
        check("primitive_execute", unsafe {
            (self.api.primitive_execute)(p.h, self.stream, args.len() as c_int, args.as_ptr())
        })?;
        // SAFETY: the stream is live.
        check("stream_wait", unsafe {
            (self.api.stream_wait)(self.stream)
        })
    }

    /// Builds the primitive for `op_desc` (weights `any` where asked), then reorders the plain
    /// weights `wei_md` ← `wei` into the format it chose, once.
    fn build(
        &self,
        op_desc: &OpDesc,
        src_md: &Md,
        src: &[u8],
        wei_md: &Md,
        wei: &[u8],
    ) -> Result<Op<'_>, String> {
        let mut pd: Handle = std::ptr::null_mut();
        // SAFETY: `op_desc` was initialised by a *_desc_init; no attributes, no hint.
        check("primitive_desc_create", unsafe {
            (self.api.primitive_desc_create)(
                &mut pd,
                op_desc as *const OpDesc as *const c_void,
                std::ptr::null(),
                self.engine,
                std::ptr::null_mut(),
            )
        })?;
        let prim = self.primitive(pd)?;
        // SAFETY: queries on the live pd; the returned descriptors live as long as it does.
        let (wei_chosen, dst_md) = unsafe {
            (
                (self.api.primitive_desc_query_md)(prim.pd.h, QUERY_WEIGHTS_MD, 0),
                (self.api.primitive_desc_query_md)(prim.pd.h, QUERY_DST_MD, 0),
            )
        };
        let src_mem = self.memory(src_md as *const Md as *const c_void, Some(src))?;
        let wei_plain = self.memory(wei_md as *const Md as *const c_void, Some(wei))?;
        let wei_mem = self.memory(wei_chosen, None)?;
        let dst_mem = self.memory(dst_md, None)?;
        // the reorder, once, outside any timing
        let mut rpd: Handle = std::ptr::null_mut();
        // SAFETY: both descriptors are valid, on this engine; no attributes.
        check("reorder_primitive_desc_create", unsafe {
            (self.api.reorder_primitive_desc_create)(
                &mut rpd,
                wei_md as *const Md as *const c_void,
                self.engine,
                wei_chosen,
                self.engine,
                std::ptr::null(),
            )
        })?;
        let reorder = self.primitive(rpd)?;
        // SAFETY: two valid descriptors.
        let weights_plain = unsafe {
            (self.api.memory_desc_equal)(wei_md as *const Md as *const c_void, wei_chosen)
        } != 0;
        self.execute(
            &reorder,
            &[
                ExecArg {
                    arg: ARG_FROM,
                    memory: wei_plain.h,
                },
                ExecArg {
                    arg: ARG_TO,
                    memory: wei_mem.h,
                },
            ],
        )?;
        // SAFETY: dst_md is the live pd's.
        let dst_bytes = unsafe { (self.api.memory_desc_get_size)(dst_md) };
        Ok(Op {
            d: self,
            reorder_impl: reorder.impl_name.clone(),
            weights_plain,
            prim,
            src: src_mem,
            wei: wei_mem,
            dst: dst_mem,
            dst_bytes,
        })
    }

    /// `C(m×n) = A(m×k)·B(k×n)`, A and C row-major (`ab`), B given row-major and stored in
    /// `wei_tag` (`tag::AB`, or `tag::ANY` for the primitive's own packed format).
    #[allow(clippy::too_many_arguments)]
    pub fn matmul<A: Copy, B: Copy>(
        &self,
        (m, k, n): (usize, usize, usize),
        (src_dt, wei_dt, dst_dt): (c_int, c_int, c_int),
        wei_tag: c_int,
        a: &[A],
        b: &[B],
    ) -> Result<Op<'_>, String> {
        let (m, k, n) = (m as i64, k as i64, n as i64);
        let src_md = self.md(&[m, k], src_dt, tag::AB)?;
        let wei_plain = self.md(&[k, n], wei_dt, tag::AB)?;
        let wei_md = self.md(&[k, n], wei_dt, wei_tag)?;
        let dst_md = self.md(&[m, n], dst_dt, tag::AB)?;
        let mut desc = Box::new(OpDesc([0; 8192]));
        // SAFETY: every descriptor is initialised; bias is absent (null).
        check("matmul_desc_init", unsafe {
            (self.api.matmul_desc_init)(
                &mut *desc,
                &*src_md as *const Md as *const c_void,
                &*wei_md as *const Md as *const c_void,
                std::ptr::null(),
                &*dst_md as *const Md as *const c_void,
            )
        })?;
        self.build(&desc, &src_md, bytes(a), &wei_plain, bytes(b))
    }

    /// Forward-inference direct convolution, batch 1, no bias: src `c×h×w` in `src_tag`
    /// (`tag::NCHW` or `tag::NHWC`), weights given OIHW and stored as the primitive chooses
    /// (`any`), dst in `src_tag` with `dst_dt`.
    pub fn conv<S: Copy, W: Copy>(
        &self,
        p: &ConvShape,
        src_tag: c_int,
        (src_dt, dst_dt): (c_int, c_int),
        src: &[S],
        wei_oihw: &[W],
    ) -> Result<Op<'_>, String> {
        let (oh, ow) = p.out();
        let i = |x: usize| x as i64;
        let src_md = self.md(&[1, i(p.c), i(p.h), i(p.w)], src_dt, src_tag)?;
        let wei_plain = self.md(&[i(p.o), i(p.c), i(p.r), i(p.s)], src_dt, tag::NCHW)?;
        let wei_md = self.md(&[i(p.o), i(p.c), i(p.r), i(p.s)], src_dt, tag::ANY)?;
        let dst_md = self.md(&[1, i(p.o), i(oh), i(ow)], dst_dt, src_tag)?;
        let mut strides: Dims = [0; 12];
        let mut pad: Dims = [0; 12];
        strides[..2].copy_from_slice(&[i(p.stride), i(p.stride)]);
        pad[..2].copy_from_slice(&[i(p.pad), i(p.pad)]);
        let mut desc = Box::new(OpDesc([0; 8192]));
        // SAFETY: every descriptor is initialised; bias is absent (null); 2 spatial dims.
        check("convolution_forward_desc_init", unsafe {
            (self.api.convolution_forward_desc_init)(
                &mut *desc,
                FORWARD_INFERENCE,
                CONVOLUTION_DIRECT,
                &*src_md as *const Md as *const c_void,
                &*wei_md as *const Md as *const c_void,
                std::ptr::null(),
                &*dst_md as *const Md as *const c_void,
                strides.as_ptr(),
                pad.as_ptr(),
                pad.as_ptr(),
            )
        })?;
        self.build(&desc, &src_md, bytes(src), &wei_plain, bytes(wei_oihw))
    }
}

impl Drop for Dnnl {
    fn drop(&mut self) {
        // SAFETY: created in `load`; every Op borrows `self`, so none outlives them.
        unsafe {
            (self.api.stream_destroy)(self.stream);
            (self.api.engine_destroy)(self.engine);
        }
    }
}

fn bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: the element types used are plain numbers (no padding, every byte initialised).
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// A 2-D convolution's shape, batch 1: c→o channels, h×w input, r×s kernel.
#[derive(Clone, Copy, Debug)]
pub struct ConvShape {
    pub c: usize,
    pub o: usize,
    pub h: usize,
    pub w: usize,
    pub r: usize,
    pub s: usize,
    pub stride: usize,
    pub pad: usize,
}

impl ConvShape {
    /// (OH, OW).
    pub fn out(&self) -> (usize, usize) {
        (
            (self.h + 2 * self.pad - self.r) / self.stride + 1,
            (self.w + 2 * self.pad - self.s) / self.stride + 1,
        )
    }

    /// 2·O·OH·OW·C·R·S.
    pub fn flop(&self) -> f64 {
        let (oh, ow) = self.out();
        2.0 * (self.o * oh * ow * self.c * self.r * self.s) as f64
    }
}

struct Mem<'d> {
    d: &'d Dnnl,
    h: Handle,
}

impl Mem<'_> {
    fn ptr(&self) -> Result<*mut c_void, String> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: `h` is a live memory object.
        check("memory_get_data_handle", unsafe {
            (self.d.api.memory_get_data_handle)(self.h, &mut p)
        })?;
        Ok(p)
    }
}

impl Drop for Mem<'_> {
    fn drop(&mut self) {
        // SAFETY: created by memory_create, destroyed once.
        unsafe { (self.d.api.memory_destroy)(self.h) };
    }
}

struct Pd<'d> {
    d: &'d Dnnl,
    h: Handle,
}

impl Drop for Pd<'_> {
    fn drop(&mut self) {
        // SAFETY: created by a *_primitive_desc_create, destroyed once (after its primitive).
        unsafe { (self.d.api.primitive_desc_destroy)(self.h) };
    }
}

struct Prim<'d> {
    h: Handle,
    pd: Pd<'d>,
    impl_name: String,
}

impl Drop for Prim<'_> {
    fn drop(&mut self) {
        // SAFETY: created by primitive_create, destroyed once; `pd` drops after this.
        unsafe { (self.pd.d.api.primitive_destroy)(self.h) };
    }
}

/// A primitive with its own src, (reordered) weights and dst memories.
pub struct Op<'d> {
    d: &'d Dnnl,
    prim: Prim<'d>,
    src: Mem<'d>,
    wei: Mem<'d>,
    dst: Mem<'d>,
    dst_bytes: usize,
    /// The weights reorder's implementation name.
    pub reorder_impl: String,
    /// Whether the primitive kept the weights in the plain format given (`ab` / `oihw`) when
    /// asked for `any`: then the "reorder once" is a copy and the primitive packs per call.
    pub weights_plain: bool,
}

impl Op<'_> {
    /// The implementation oneDNN chose (`dnnl_query_impl_info_str`), e.g. `gemm:jit`.
    pub fn impl_name(&self) -> &str {
        &self.prim.impl_name
    }

    /// Runs the primitive once and waits for it.
    pub fn run(&self) {
        self.d
            .execute(
                &self.prim,
                &[
                    ExecArg {
                        arg: ARG_SRC,
                        memory: self.src.h,
                    },
                    ExecArg {
                        arg: ARG_WEIGHTS,
                        memory: self.wei.h,
                    },
                    ExecArg {
                        arg: ARG_DST,
                        memory: self.dst.h,
                    },
                ],
            )
            .expect("oneDNN execute");
    }

    /// A copy of dst, read as `T`s.
    pub fn dst<T: Copy + Default>(&self) -> Vec<T> {
        let n = self.dst_bytes / std::mem::size_of::<T>();
        let mut v = vec![T::default(); n];
        let p = self.dst.ptr().expect("dst handle");
        // SAFETY: the library allocated `dst_bytes` bytes at `p`; `v` holds that many.
        unsafe {
            std::ptr::copy_nonoverlapping(
                p as *const u8,
                v.as_mut_ptr() as *mut u8,
                n * size_of::<T>(),
            )
        };
        v
    }
}
