// Generators of G1 and G2 (host only), parsed once from their canonical hex coordinates.
#include "zkpipe/crypto/curves.h"

#include <cstdlib>

namespace zkpipe::crypto {
namespace {

Fp fp(const char* hex) {
  auto r = Fp::from_hex(hex);
  if (!r.ok()) std::abort();  // a typo in a constant below: caught by every test
  return *r;
}

}  // namespace

const G1Affine& g1_generator() {
  static const G1Affine g{fp("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e"
                             "83ff97a1aeffb3af00adb22c6bb"),
                          fp("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc"
                             "744a2888ae40caa232946c5e7e1"),
                          false};
  return g;
}

const G2Affine& g2_generator() {
  static const G2Affine g{{fp("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac"
                              "0326a805bbefd48056c8c121bdb8"),
                           fp("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334c"
                              "f11213945d57e5ac7d055d042b7e")},
                          {fp("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923a"
                              "c9cc3baca289e193548608b82801"),
                           fp("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f37"
                              "0d275cec1da1aaa9075ff05f79be")},
                          false};
  return g;
}

}  // namespace zkpipe::crypto
