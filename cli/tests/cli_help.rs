//! Every option and argument of every command (nested `kuzu` ones included) has a
//! help text: the walk reads each command's `--help`, as a user would.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn help(path: &[String]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_gramlink")).args(path).arg("--help").output().expect("run gramlink");
    assert!(o.status.success(), "{path:?} --help: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// One command's help, read: its subcommands, and the options and arguments whose
/// help says nothing once clap's own brackets (`[default: …]`, `[possible values: …]`)
/// and the list of an enum's values are taken away.
#[derive(Debug, Default, PartialEq)]
struct Page {
    commands: Vec<String>,
    bare: Vec<String>,
}

fn is_section(line: &str) -> Option<&str> {
    let (name, _) = line.split_once(':')?;
    (!line.starts_with(' ') && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())).then_some(name)
}

fn says_something(text: &str) -> bool {
    let mut rest = text.split("Possible values:").next().unwrap_or_default().to_string();
    for note in ["[default:", "[possible values:", "[aliases:"] {
        while let Some(i) = rest.find(note) {
            let end = rest[i..].find(']').map_or(rest.len(), |j| i + j + 1);
            rest.replace_range(i..end, "");
        }
    }
    !rest.trim().is_empty()
}

fn close(entry: &mut Option<(String, String)>, out: &mut Page) {
    if let Some((head, text)) = entry.take() {
        if !says_something(&text) {
            out.bare.push(head);
        }
    }
}

fn read(page: &str) -> Page {
    let mut out = Page::default();
    let mut section = "";
    let mut entry: Option<(String, String)> = None;
    for line in page.lines() {
        if let Some(name) = is_section(line) {
            close(&mut entry, &mut out);
            section = name;
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        match section {
            "Commands" if indent == 2 => {
                let name = body.split_whitespace().next().unwrap_or_default();
                if name != "help" {
                    out.commands.push(name.to_string());
                }
            }
            "Options" | "Arguments" if (2..=6).contains(&indent) && !body.is_empty() => {
                close(&mut entry, &mut out);
                let (head, text) = body.split_once("  ").unwrap_or((body, ""));
                entry = Some((head.to_string(), text.to_string()));
            }
            _ => {
                if let Some((_, text)) = entry.as_mut() {
                    text.push(' ');
                    text.push_str(body);
                }
            }
        }
    }
    close(&mut entry, &mut out);
    out
}

fn walk(path: Vec<String>, bare: &mut Vec<String>, seen: &mut usize) {
    let page = read(&help(&path));
    *seen += 1;
    for b in page.bare {
        bare.push(format!("gramlink {} {b}", path.join(" ")));
    }
    for c in page.commands {
        let mut p = path.clone();
        p.push(c);
        walk(p, bare, seen);
    }
}

#[test]
fn every_option_of_every_command_has_help() {
    let (mut bare, mut seen) = (Vec::new(), 0);
    walk(Vec::new(), &mut bare, &mut seen);
    assert!(seen > 25, "the walk reached only {seen} commands");
    assert!(bare.is_empty(), "options without help text:\n{}", bare.join("\n"));
}

/// What a data owner and a matcher run, and nothing else, in `gramlink --help`;
/// the experiments sit under `gramlink lab` (cli/src/lab/).
#[test]
fn the_product_help_lists_no_lab_command() {
    const LAB: [&str; 11] = [
        "eval",
        "corrupt",
        "mine-utility",
        "experiment",
        "results",
        "levers",
        "attack",
        "frontier",
        "krimp",
        "kuzu-eval",
        "kuzu-bench",
    ];
    let product = read(&help(&[])).commands;
    for c in ["mine", "merge", "embed", "match", "link", "keygen", "unmap", "kuzu", "twin", "lab"] {
        assert!(product.contains(&c.to_string()), "gramlink --help lacks {c}: {product:?}");
    }
    let lab = read(&help(&["lab".to_string()])).commands;
    assert_eq!(lab, LAB, "gramlink lab --help");
    for c in LAB {
        assert!(!product.contains(&c.to_string()), "gramlink --help lists the lab's {c}");
    }
    let kuzu = read(&help(&["kuzu".to_string()])).commands;
    assert!(!kuzu.iter().any(|c| c == "eval" || c == "bench"), "gramlink kuzu --help: {kuzu:?}");
}

/// The reader finds a bare option in both of clap's layouts (help beside the
/// flag, help on the next line), and an enum's value list is not the option's help.
#[test]
fn the_reader_finds_an_option_without_help() {
    let compact = "About\n\nUsage: x [OPTIONS] <IN>\n\nArguments:\n  <IN>  The input\n\nOptions:\n  -o, --out <OUT>  Where [default: a]\n      --seed <SEED>  [default: 42]\n      --json\n  -h, --help       Print help\n";
    assert_eq!(read(compact).bare, ["--seed <SEED>", "--json"]);
    let next_line = "About\n\nUsage: x\n\nCommands:\n  run   Runs\n  help  Print this\n\nOptions:\n      --format <FORMAT>\n          [default: auto]\n\n          Possible values:\n          - auto: Guess\n\n      --ks <KS>\n          Comma-separated sizes\n          \n          [default: 25 75]\n\n      --quiet\n          \n  -h, --help\n          Print help\n";
    let p = read(next_line);
    assert_eq!(p.bare, ["--format <FORMAT>", "--quiet"]);
    assert_eq!(p.commands, ["run"]);
    assert!(says_something("Sizes [default: 1] (see [docs])"));
}
