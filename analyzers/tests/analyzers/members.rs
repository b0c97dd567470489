//! The members of types and the reads and writes of members on receivers (issue 33), for
//! the conflict forecast's member-vs-uses kind: what each built-in language reports.

use crate::common::analyze;

/// `(container.name, type)` of every member, in order.
fn members(a: &wit_core::Analysis) -> Vec<(String, Option<&str>)> {
    a.members
        .iter()
        .map(|m| {
            (
                format!("{}.{}", m.container, m.name),
                m.type_text.as_deref(),
            )
        })
        .collect()
}

/// `(user, member, receiver, write, line)` of every access, in order.
fn accesses(a: &wit_core::Analysis) -> Vec<(&str, &str, &str, bool, usize)> {
    a.accesses
        .iter()
        .map(|x| {
            (
                x.user.as_str(),
                x.member.as_str(),
                x.receiver.as_str(),
                x.write,
                x.line,
            )
        })
        .collect()
}

#[test]
fn typescript_interface_class_and_type_members_and_accesses_on_receivers_of_known_class() {
    let src = "\
export interface Order {
  id: string;
  coupon?: string;
  total(): number;
}
export type Line = { sku: string; qty: number };
export class Cart {
  items: Line[] = [];
  constructor(private owner: Order, name: string) {
    this.count = 0;
  }
  add(line: Line) {
    this.items.push(line);
    this.count += 1;
    return this.owner.coupon;
  }
}
export function pay(order: Order, x) {
  const c = new Cart(order, 'a');
  order.total();
  x.coupon;
  return order.coupon + c.count;
}
";
    let a = analyze("src/order.ts", src);
    assert_eq!(
        members(&a),
        [
            ("Order.id".to_owned(), Some("string")),
            ("Order.coupon".to_owned(), Some("string | undefined")),
            ("Line.sku".to_owned(), Some("string")),
            ("Line.qty".to_owned(), Some("number")),
            ("Cart.items".to_owned(), Some("Line[]")),
            ("Cart.owner".to_owned(), Some("Order")),
            ("Cart.count".to_owned(), None),
        ]
    );
    // Calls are no accesses (`order.total()`, `this.items.push()`); an unannotated
    // parameter's is not reported (`x.coupon`).
    assert_eq!(
        accesses(&a),
        [
            ("Cart.constructor", "count", "this", true, 9),
            ("Cart.add", "items", "this", false, 12),
            ("Cart.add", "count", "this", true, 13),
            ("Cart.add", "owner", "this", false, 14),
            ("Cart.add", "coupon", "this.owner", false, 14),
            ("pay", "coupon", "new:Order", false, 21),
            ("pay", "count", "new:Cart", false, 21),
        ]
    );
}

#[test]
fn python_class_attributes_self_fields_and_accesses_on_self_and_annotated_parameters() {
    let src = "\
class Order:
    currency: str = 'EUR'
    discount = 0

    def __init__(self, coupon):
        self.coupon: str = coupon
        self.lines = []

    def total(self):
        self.discount += 1
        return len(self.lines)


def pay(order: Order, other):
    other.coupon
    fresh = Order('x')
    return order.coupon, fresh.lines, order.total()
";
    let a = analyze("shop/order.py", src);
    assert_eq!(
        members(&a),
        [
            ("Order.currency".to_owned(), Some("str")),
            ("Order.discount".to_owned(), None),
            ("Order.coupon".to_owned(), Some("str")),
            ("Order.lines".to_owned(), None),
        ]
    );
    assert_eq!(
        accesses(&a),
        [
            ("Order.__init__", "coupon", "self", true, 5),
            ("Order.__init__", "lines", "self", true, 6),
            ("Order.total", "discount", "self", true, 9),
            ("Order.total", "lines", "self", false, 10),
            ("pay", "coupon", "new:Order", false, 16),
            ("pay", "lines", "new:Order", false, 16),
        ]
    );
}

#[test]
fn java_fields_and_accesses_on_typed_variables_and_this() {
    let src = "\
package shop;
public class Order {
  public String coupon;
  int total, count;
  void clear() { this.total = 0; }
}
class Pay {
  int pay(Order o, Object x) {
    o.count(); 
    return o.coupon.length() + this.fee;
  }
  int fee;
}
";
    let a = analyze("src/shop/Order.java", src);
    assert_eq!(
        members(&a),
        [
            ("Order.coupon".to_owned(), Some("String")),
            ("Order.total".to_owned(), Some("int")),
            ("Order.count".to_owned(), Some("int")),
            ("Pay.fee".to_owned(), Some("int")),
        ]
    );
    assert_eq!(
        accesses(&a),
        [
            ("Order.clear", "total", "this", true, 4),
            ("Pay.pay", "coupon", "new:Order", false, 9),
            ("Pay.pay", "fee", "this", false, 9),
        ]
    );
}

#[test]
fn go_struct_fields_and_accesses_on_typed_receivers_and_parameters() {
    let src = "\
package shop

type Order struct {
\tCoupon string
\tTotal, Count int
}

func (o *Order) Clear() {
\to.Total = 0
\to.Count++
}

func Pay(o Order, x any) string {
\to.Clear()
\treturn o.Coupon
}
";
    let a = analyze("shop/order.go", src);
    assert_eq!(
        members(&a),
        [
            ("Order.Coupon".to_owned(), Some("string")),
            ("Order.Total".to_owned(), Some("int")),
            ("Order.Count".to_owned(), Some("int")),
        ]
    );
    assert_eq!(
        accesses(&a),
        [
            ("Order.Clear", "Total", "new:Order", true, 8),
            ("Order.Clear", "Count", "new:Order", true, 9),
            ("Pay", "Coupon", "new:Order", false, 14),
        ]
    );
}

#[test]
fn rust_and_csharp_fields_and_accesses_on_self_and_this() {
    let rs = "\
pub struct Order {
    pub coupon: String,
    total: u64,
}
impl Order {
    pub fn clear(&mut self) {
        self.total = 0;
        self.coupon.clear();
    }
}
";
    let a = analyze("src/order.rs", rs);
    assert_eq!(
        members(&a),
        [
            ("Order.coupon".to_owned(), Some("String")),
            ("Order.total".to_owned(), Some("u64")),
        ]
    );
    assert_eq!(
        accesses(&a),
        [
            ("Order.clear", "total", "self", true, 6),
            ("Order.clear", "coupon", "self", false, 7),
        ]
    );
    let cs = "\
public class Order {
  public string Coupon { get; set; }
  private int total;
  public void Clear() { this.total = 0; }
}
";
    let a = analyze("src/Order.cs", cs);
    assert_eq!(
        members(&a),
        [
            ("Order.Coupon".to_owned(), Some("string")),
            ("Order.total".to_owned(), Some("int")),
        ]
    );
    assert_eq!(accesses(&a), [("Order.Clear", "total", "this", true, 3)]);
}
