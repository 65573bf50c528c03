int main() { return 1; }  // Placeholder: replaced by the network owner.
