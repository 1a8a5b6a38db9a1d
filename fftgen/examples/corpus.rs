//! The emitted corpus: the CUDA and OpenCL sources and the manifest of
//! 47 shapes (C2C and R2C, f32 and f64, out of place and in place with a
//! unitary normalisation, for the H200 and the portable target; planned,
//! and Bluestein's steps apart where the shape has them) written into DIR,
//! one file each. A change to the generator that should not change a
//! kernel proves it by an empty diff of two runs, before and after:
//!
//!     git stash; cargo run --release -p fftgen --example corpus -- /tmp/before
//!     git stash pop; cargo run --release -p fftgen --example corpus -- /tmp/after
//!     diff -r /tmp/before /tmp/after
//!
//! (The insta snapshots pin a few kernels for review; this covers more.)
use fftgen::{Backend, FftSpec, Normalization, Placement, Precision, Target, TransformKind};
use std::io::Write;

fn main() {
    let dir = std::env::args().nth(1).expect("DIR");
    std::fs::create_dir_all(&dir).unwrap();
    let shapes: Vec<Vec<usize>> = [
        "2",
        "7",
        "11",
        "16",
        "36",
        "64",
        "100",
        "105",
        "125",
        "128",
        "343",
        "625",
        "1000",
        "1331",
        "2048",
        "2376",
        "4096",
        "8192",
        "13860",
        "30375",
        "98415",
        "262144",
        "47628000",
        "8037225",
        "4099",
        "37",
        "97",
        "106",
        "227",
        "843",
        "1022",
        "12529",
        "65537",
        "107865",
        "7474",
        "245868",
        "64x64",
        "676x25",
        "30x7x125",
        "12x20x7",
        "1024x1024",
        "343x121",
        "74x127",
        "2x87",
        "150x56x548",
        "1825x10",
        "3x6x61",
    ]
    .iter()
    .map(|s| s.split('x').map(|a| a.parse().unwrap()).collect())
    .collect();
    let mut count = 0;
    for shape in &shapes {
        for kind in [TransformKind::C2c, TransformKind::R2c] {
            for precision in [Precision::F32, Precision::F64] {
                for (placement, normalization) in [
                    (Placement::OutOfPlace, Normalization::None),
                    (Placement::InPlace, Normalization::Unitary),
                ] {
                    for target in [Target::H200, Target::PORTABLE] {
                        let spec = FftSpec::with_shape(shape)
                            .kind(kind)
                            .precision(precision)
                            .placement(placement)
                            .normalization(normalization)
                            .target(target.clone());
                        let name = format!(
                            "{}_{:?}_{:?}_{:?}_{:?}_{}",
                            shape
                                .iter()
                                .map(|a| a.to_string())
                                .collect::<Vec<_>>()
                                .join("x"),
                            kind,
                            precision,
                            placement,
                            normalization,
                            target.name
                        );
                        let mut plans = Vec::new();
                        if let Ok(plan) = fftgen::plan::plan(&spec) {
                            plans.push(("plan", plan));
                        }
                        if let Ok(plan) = fftgen::plan::bluestein::plan_apart(&spec) {
                            plans.push(("apart", plan));
                        }
                        for (route, plan) in plans {
                            let Ok(generated) = fftgen::emit::generate_plan(plan, "corpus") else {
                                continue;
                            };
                            std::fs::write(
                                format!("{dir}/{name}_{route}.json"),
                                generated.manifest.to_json(),
                            )
                            .unwrap();
                            for backend in [Backend::Cuda, Backend::OpenCl] {
                                let path = format!("{dir}/{name}_{route}_{backend:?}.src");
                                let mut f = std::fs::File::create(path).unwrap();
                                f.write_all(generated.source(backend).as_bytes()).unwrap();
                                count += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!("{count} sources");
}
