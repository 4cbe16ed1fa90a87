// SPDX-License-Identifier: Apache-2.0
// Stands in for the application whose profile was recorded (see CMakeLists.txt): perfgate's
// COLLECTOR profile runs the target once and requires it to succeed.
int main() { return 0; }
