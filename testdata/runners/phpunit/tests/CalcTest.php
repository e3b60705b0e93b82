<?php

declare(strict_types=1);

use PHPUnit\Framework\TestCase;

final class CalcTest extends TestCase
{
    public function testAdds(): void
    {
        $this->assertSame(3, 1 + 2);
    }

    public function testFailsWithMessage(): void
    {
        $this->assertSame(3, 2 + 2, 'total mismatch');
    }

    public function testLeaksFakeSecrets(): void
    {
        $this->fail('login failed for https://ci:password=hunter2-not-real@example.invalid '
            . 'headers Authorization: Bearer abc.def.ghi key AKIAIOSFODNN7EXAMPLE');
    }

    public function testThrowsOutsideAnAssertion(): void
    {
        throw new RuntimeException('could not open the resource');
    }

    public function testSkipped(): void
    {
        $this->markTestSkipped('not supported on this platform');
    }

    public function testIncomplete(): void
    {
        $this->markTestIncomplete('still to do');
    }

    public function testGröße名前(): void
    {
        $this->assertSame('GRÖSSE', mb_strtoupper('grösse'));
    }

    /**
     * @dataProvider separators
     */
    public function testSeparator(string $name): void
    {
        $this->assertNotSame('', $name);
    }

    public static function separators(): array
    {
        return [
            'a::b' => ['a::b'],
            'x > y' => ['x > y'],
            'p › q' => ['p › q'],
            'fails' => [''],
        ];
    }
}
