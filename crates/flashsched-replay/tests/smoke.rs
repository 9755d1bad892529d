mod common;
use common::*;
use flashsched_replay::Replay;

#[test]
fn smoke() {
    if !uring() {
        return;
    }
    let s = Scratch::new("smoke");
    let mut sp = spec(
        &s.path("t.bin"),
        0,
        64 << 20,
        "read=0.5,bs=4k,qd=16,n=20000",
    );
    sp.verify = true;
    let mut r = Replay::new(sp).unwrap();
    r.run().unwrap();
    println!("{}", r.summary_json());
}
