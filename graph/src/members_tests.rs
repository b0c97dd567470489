//! Member accesses resolved to the members of types, across files (issue 33).

use std::sync::Arc;

use super::*;

/// The graph of `files` and their analyses (the graph keeps no accesses: the caller
/// passes the user's file's own analysis).
fn graph(files: &[(&str, &str)]) -> (Graph, HashMap<String, Arc<Analysis>>) {
    let registry = wit_analyzers::builtin_registry();
    let mut g = Graph::new();
    let mut analyses = HashMap::new();
    for (path, source) in files {
        let analyzer = registry.for_path(path).expect("supported");
        let analysis = Arc::new(analyzer.analyze_full(source).expect("analyses"));
        g.insert(path, analysis.clone());
        analyses.insert((*path).to_owned(), analysis);
    }
    (g, analyses)
}

/// `member (read|write) L<line>` of what `user` in `file` uses.
fn uses(files: &[(&str, &str)], file: &str, user: &str) -> Vec<String> {
    let (g, analyses) = graph(files);
    g.member_uses(file, &analyses[file], user)
        .iter()
        .map(|u| {
            format!(
                "{} ({}) L{}",
                u.member,
                if u.write { "write" } else { "read" },
                u.line + 1
            )
        })
        .collect()
}

const ORDER_TS: &str = "export interface Order {\n  id: string;\n  coupon?: string;\n}\nexport class Base {\n  total = 0;\n}\nexport class Cart extends Base {\n  owner: Order;\n  constructor(owner: Order) {\n    super();\n    this.owner = owner;\n  }\n  sum() {\n    this.total += 1;\n    return this.owner.coupon;\n  }\n}\n";

#[test]
fn typescript_reads_on_annotated_parameters_fields_and_this_resolve_to_the_declaring_type() {
    let checkout = "import { Order, Cart } from './order';\nexport function pay(order: Order, other) {\n  const cart = new Cart(order);\n  other.coupon;\n  return order.coupon + cart.total + order.missing;\n}\n";
    let files = [("src/order.ts", ORDER_TS), ("src/checkout.ts", checkout)];
    // Through the import: `order: Order` is the interface's; `cart.total` is inherited
    // from `Base`; `other` (no annotation) and a member `Order` lacks name nothing.
    assert_eq!(
        uses(&files, "src/checkout.ts", "pay"),
        [
            "src/order.ts:Base.total (read) L5",
            "src/order.ts:Order.coupon (read) L5",
        ]
    );
    // `this.total` is the base's; `this.owner.coupon` goes through the field's class.
    assert_eq!(
        uses(&files, "src/order.ts", "Cart.sum"),
        [
            "src/order.ts:Base.total (write) L15",
            "src/order.ts:Cart.owner (read) L16",
            "src/order.ts:Order.coupon (read) L16",
        ]
    );
}

/// Sessions of one checkout share its graph: a member one session removed is gone from
/// it while another's code reads it. Asked for, the read is named as the receiver's
/// type's; an unknown receiver still names nothing.
#[test]
fn a_member_the_resolved_type_does_not_declare_is_named_as_its_only_when_asked() {
    let checkout = "import { Order, Cart } from './order';\nexport function pay(order: Order, other) {\n  other.coupon;\n  return order.missing;\n}\n";
    let files = [("src/order.ts", ORDER_TS), ("src/checkout.ts", checkout)];
    assert_eq!(uses(&files, "src/checkout.ts", "pay"), Vec::<String>::new());
    let (g, analyses) = graph(&files);
    let got: Vec<String> = g
        .member_uses_undeclared("src/checkout.ts", &analyses["src/checkout.ts"], "pay")
        .into_iter()
        .map(|u| format!("{} L{}", u.member, u.line + 1))
        .collect();
    assert_eq!(got, ["src/order.ts:Order.missing L4"]);
}

#[test]
fn python_self_and_annotated_parameters_resolve_across_modules() {
    let order = "class Order:\n    def __init__(self, coupon):\n        self.coupon = coupon\n\n    def show(self):\n        return self.coupon\n";
    let shop = "from shop.order import Order\n\ndef pay(order: Order, other):\n    other.coupon\n    return order.coupon\n";
    let files = [("shop/order.py", order), ("shop/pay.py", shop)];
    assert_eq!(
        uses(&files, "shop/pay.py", "pay"),
        ["shop/order.py:Order.coupon (read) L5"]
    );
    assert_eq!(
        uses(&files, "shop/order.py", "Order.show"),
        ["shop/order.py:Order.coupon (read) L6"]
    );
}

#[test]
fn java_and_go_accesses_resolve_by_their_declared_types() {
    let order = "package shop;\npublic class Order {\n  public String coupon;\n}\n";
    let special = "package shop;\npublic class Special extends Order {\n  int extra;\n}\n";
    let pay = "package shop;\nclass Pay {\n  String pay(Special s) {\n    return s.coupon + s.extra;\n  }\n}\n";
    let files = [
        ("src/shop/Order.java", order),
        ("src/shop/Special.java", special),
        ("src/shop/Pay.java", pay),
    ];
    assert_eq!(
        uses(&files, "src/shop/Pay.java", "Pay.pay"),
        [
            "src/shop/Order.java:Order.coupon (read) L4",
            "src/shop/Special.java:Special.extra (read) L4",
        ]
    );
    let order = "package shop\n\ntype Order struct {\n\tCoupon string\n}\n";
    let pay = "package shop\n\nfunc Pay(o *Order) string {\n\treturn o.Coupon\n}\n";
    let files = [("shop/order.go", order), ("shop/pay.go", pay)];
    assert_eq!(
        uses(&files, "shop/pay.go", "Pay"),
        ["shop/order.go:Order.Coupon (read) L4"]
    );
}

#[test]
fn rust_self_fields_resolve_to_the_struct_in_another_file_of_the_directory() {
    let order = "pub struct Order {\n    pub coupon: String,\n}\n";
    let imp = "impl Order {\n    pub fn code(&self) -> &str {\n        &self.coupon\n    }\n}\n";
    let files = [("src/order.rs", order), ("src/order_impl.rs", imp)];
    assert_eq!(
        uses(&files, "src/order_impl.rs", "Order.code"),
        ["src/order.rs:Order.coupon (read) L3"]
    );
}
