int main(void) { return 0; }
/* a C file handed to solar translate: not Python */
