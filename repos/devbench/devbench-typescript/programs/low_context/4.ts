class Item {
    constructor(public name: string, public price: number) {}
}

class ShoppingCart {
    private items: Item[] = [];

    addItem(item: Item): void {
        this.items.push(item);
    }

    getTotal(): number {
        return this.items.reduce((total, item) => total + item.price, 0);
    }
}

// Testing the ShoppingCart
const cart = new ShoppingCart();
cart.addItem(new Item("Apple", 1.5));
cart.addItem(new Item("Banana", 0.75));
console.assert(cart.getTotal() === 2.25, "Total should be 2.25");