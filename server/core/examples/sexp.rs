fn main() {
    let path = std::env::args().nth(1).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let tree = torchcts_core::syntax::parse(&text, None);
    let mut cursor = tree.walk();
    let mut depth = 0;
    loop {
        let n = cursor.node();
        println!(
            "{}{} {:?} {}",
            "  ".repeat(depth),
            if n.is_missing() { "MISSING " } else { "" },
            n.kind(),
            n.start_position()
        );
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}
